package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// KIDOptions sets how KID subsamples the two feature sets; the zero value
// means the defaults of torchmetrics and clean-fid.
type KIDOptions struct {
	// Subsets is the number of subset pairs averaged (0: 100).
	Subsets int
	// SubsetSize is the number of rows drawn from each set per subset
	// (0: 1000); it is lowered to the smaller set's size, as clean-fid
	// does.
	SubsetSize int
	// Seed seeds the draws (PCG); KID on fewer rows than SubsetSize
	// does not depend on it.
	Seed uint64
}

// KID returns the kernel inception distance between feature sets a and b
// (one row per image, same width d): the unbiased estimate of the squared
// maximum mean discrepancy with the cubic polynomial kernel
// k(x, y) = (x·y/d + 1)³, averaged over subset pairs of m rows drawn
// without replacement from each set, as torchmetrics'
// KernelInceptionDistance and clean-fid's kernel_distance compute it:
//
//	MMD² = (Σ_{i≠j} k(xᵢ, xⱼ) + Σ_{i≠j} k(yᵢ, yⱼ)) / (m(m − 1)) − 2 Σ_{i,j} k(xᵢ, yⱼ) / m²
//
// It also returns the standard deviation of the subset values (over
// subsets, not divided by √n: torchmetrics' kid_std). Small-sample GAN
// evaluations prefer KID to FID because this estimate is unbiased; it can
// be slightly negative. With both sets of at most SubsetSize rows and
// equal size every subset is the whole set, so the result is exact and
// does not depend on the random draws (of torchmetrics', clean-fid's or
// ours).
func KID(a, b mat.Matrix, opt KIDOptions) (mean, std float64, err error) {
	na, d := a.Dims()
	nb, db := b.Dims()
	if d != db {
		return 0, 0, fmt.Errorf("eval: KID of %d-d and %d-d features", d, db)
	}
	if d == 0 {
		return 0, 0, errors.New("eval: KID of 0-d features")
	}
	subsets, size := opt.Subsets, opt.SubsetSize
	if subsets == 0 {
		subsets = 100
	}
	if size == 0 {
		size = 1000
	}
	if subsets < 0 || size < 0 {
		return 0, 0, fmt.Errorf("eval: KID with %d subsets of %d rows", subsets, size)
	}
	m := min(size, na, nb)
	if m < 2 {
		return 0, 0, fmt.Errorf("eval: KID needs at least 2 rows in each set, got %d and %d", na, nb)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x4b4944)) // "KID"
	vals := make([]float64, subsets)
	x, y := mat.NewDense(m, d, nil), mat.NewDense(m, d, nil)
	kxx, kyy, kxy := mat.NewDense(m, m, nil), mat.NewDense(m, m, nil), mat.NewDense(m, m, nil)
	for s := range vals {
		pick(x, a, rng.Perm(na)[:m])
		pick(y, b, rng.Perm(nb)[:m])
		kxx.Mul(x, x.T())
		kyy.Mul(y, y.T())
		kxy.Mul(x, y.T())
		vals[s] = mmdUnbiased(kxx, kyy, kxy, m, float64(d))
	}
	for _, v := range vals {
		mean += v
	}
	mean /= float64(subsets)
	for _, v := range vals {
		std += float64((v - mean) * (v - mean)) // float64(…) stops arm64 fusing a multiply-add: same bits as amd64
	}
	return mean, math.Sqrt(std / float64(subsets)), nil
}

// pick copies rows idx of src to dst.
func pick(dst *mat.Dense, src mat.Matrix, idx []int) {
	_, d := dst.Dims()
	for i, r := range idx {
		for j := range d {
			dst.Set(i, j, src.At(r, j))
		}
	}
}

// mmdUnbiased turns the three Gram matrices of a subset pair into the
// unbiased MMD² with kernel (g/d + 1)³.
func mmdUnbiased(kxx, kyy, kxy *mat.Dense, m int, d float64) float64 {
	// float64(…) stops arm64 fusing k's product into the sums: same bits
	// as amd64.
	k := func(g float64) float64 { v := g/d + 1; return float64(v * v * v) }
	var sxx, syy, sxy float64
	for i := range m {
		for j := range m {
			if i != j {
				sxx += k(kxx.At(i, j))
				syy += k(kyy.At(i, j))
			}
			sxy += k(kxy.At(i, j))
		}
	}
	fm := float64(m)
	return (sxx+syy)/(fm*(fm-1)) - 2*sxy/(fm*fm)
}

func init() { Register("kid", kidMetric{}) }

// kidMetric is the registered "kid".
type kidMetric struct{}

func (kidMetric) Summary() string {
	return "KID: unbiased MMD² of two sets' features with the cubic polynomial kernel, mean and std over Options.KID's subsets, as torchmetrics and clean-fid compute it"
}

func (kidMetric) Label(features string) string { return "KID (" + features + ")" }
func (kidMetric) NeedsRows() bool              { return true }

func (kidMetric) CompareSets(a, b Features, o Options) ([]float64, error) {
	if a.Rows == nil || b.Rows == nil {
		return nil, errors.New("eval: KID needs the features of every image, not their statistics")
	}
	mean, std, err := KID(a.Rows, b.Rows, o.KID)
	if err != nil {
		return nil, err
	}
	return []float64{mean, std}, nil
}
