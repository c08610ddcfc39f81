# Makes the numpy fixtures of eval's tests. Run from eval/testdata with
# Debian's python3-numpy 1.24.2 and python3-scipy 1.10.1:
#
#   /usr/bin/python3 make_fixtures.py
#
# stats_a.npz and stats_b.npz are written the way `pytorch-fid --save-stats`
# writes them (numpy.savez_compressed with float64 mu and sigma);
# features_a.npz and features_b.npz hold the feature rows ("act") they were
# computed from. The printed distances come from frechet_pytorch_fid below,
# which follows pytorch_fid/fid_score.py calculate_frechet_distance step by
# step (scipy.linalg.sqrtm of the product), and are pasted into
# npz_test.go.
import numpy as np
from scipy import linalg


def frechet_pytorch_fid(mu1, sigma1, mu2, sigma2, eps=1e-6):
    diff = mu1 - mu2
    covmean, _ = linalg.sqrtm(sigma1.dot(sigma2), disp=False)
    offset_used = False
    if not np.isfinite(covmean).all():
        offset = np.eye(sigma1.shape[0]) * eps
        covmean = linalg.sqrtm((sigma1 + offset).dot(sigma2 + offset))
        offset_used = True
    if np.iscomplexobj(covmean):
        if not np.allclose(np.diagonal(covmean).imag, 0, atol=1e-3):
            raise ValueError("Imaginary component %g" % np.max(np.abs(covmean.imag)))
        covmean = covmean.real
    return diff.dot(diff) + np.trace(sigma1) + np.trace(sigma2) - 2 * np.trace(covmean), offset_used


def stats(act):
    # As pytorch_fid.fid_score.calculate_activation_statistics.
    return np.mean(act, axis=0), np.cov(act, rowvar=False)


rng = np.random.RandomState(20261121)
act_a = rng.standard_normal((40, 6))
act_b = rng.standard_normal((30, 6)) * 1.5 + 0.25
act_b[:, 2] += 0.5 * act_b[:, 0]
for name, act in (("a", act_a), ("b", act_b)):
    mu, sigma = stats(act)
    np.savez_compressed("stats_%s.npz" % name, mu=mu, sigma=sigma)
    np.savez_compressed("features_%s.npz" % name, act=act)

# The same statistics as float32, sigma in Fortran order.
mu, sigma = stats(act_a)
np.savez_compressed("stats_a_f32_fortran.npz", mu=mu.astype(np.float32),
                    sigma=np.asfortranarray(sigma.astype(np.float32)))

ma, sa = stats(act_a)
mb, sb = stats(act_b)
print("FID(a, b) = %.17g offset=%s" % frechet_pytorch_fid(ma, sa, mb, sb))
print("FID(a, a) = %.17g offset=%s" % frechet_pytorch_fid(ma, sa, ma, sa))

# Singular covariances: 5 samples of 8 features.
act_c = rng.standard_normal((5, 8))
act_d = rng.standard_normal((5, 8)) + 0.5
np.savez_compressed("features_c.npz", act=act_c)
np.savez_compressed("features_d.npz", act=act_d)
mc, sc = stats(act_c)
md, sd = stats(act_d)
print("FID(c, d) = %.17g offset=%s" % frechet_pytorch_fid(mc, sc, md, sd))
# The exact value, computed well-conditioned: Σc = B Bᵀ with B the centred
# features over sqrt(n-1), and B 1 = 0, so with H an orthonormal basis of
# the complement of 1, Σc = (BH)(BH)ᵀ and the nonzero eigenvalues of Σc Σd
# are the eigenvalues of the full-rank 4×4 matrix (BH)ᵀ Σd (BH).
n = act_c.shape[0]
B = (act_c - mc).T / np.sqrt(n - 1)
H = np.linalg.qr(np.column_stack([np.ones(n), np.eye(n)[:, :n - 1]]))[0][:, 1:]
ev = np.linalg.eigvalsh((B @ H).T @ sd @ (B @ H))
exact = (mc - md).dot(mc - md) + np.trace(sc) + np.trace(sd) - 2 * np.sqrt(ev).sum()
print("exact FID(c, d) = %.17g" % exact)
