package gan_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// TestWeightCacheTraining trains with and without the layers' caches of
// rounded weights (nn.CacheWeights, on in every trainer) and wants the
// same bits, under policies whose weights are rounded element-wise, in
// blocks (mxfp8: forward and backward block along different axes), with
// exponent-bias rebuilds, an N:M mask, stochastic rounding, and across a
// checkpoint and Resume (whose load writes the weights). The golden
// hashes (TestGoldenBits) check the cached trainer against bits recorded
// before the cache; this covers the policies they do not.
func TestWeightCacheTraining(t *testing.T) {
	ds := toyData(t, 40, 8, 1)
	for _, c := range []struct {
		name      string
		cfg       models.Config
		policy    string
		biasEvery int
	}{
		{"cgan-mxfp8", tinyCGAN(), "mxfp8", 0},
		{"dcgan-mxfp8", tinyDCGAN(), "mxfp8", 0},
		{"cgan-posit8+-biases", tinyCGAN(), "posit8+", 1},
		{"dcgan-fp8-ibm", tinyDCGAN(), "fp8-ibm", 0},
		{"cgan-posit8+@2:4", tinyCGAN(), "posit8+@2:4", 0},
		{"dcgan-posit8+-stochastic", tinyDCGAN(), "posit8+ rounding=stochastic", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := gan.Options{Policy: policyWith(t, c.policy), Batch: 8, Seed: 3, BiasEvery: c.biasEvery}
			off := newTrainer(t, c.cfg, ds, opt)
			gan.SetWeightCache(off, false)
			on := newTrainer(t, c.cfg, ds, opt)
			// Both checkpoint after 2 steps: a checkpoint restarts
			// stochastic rounding's streams.
			var ck *ckpt.Checkpoint // on's
			for _, tr := range []*gan.Trainer{off, on} {
				steps(t, tr, 2)
				c, err := tr.Checkpoint()
				if err != nil {
					t.Fatal(err)
				}
				ck = c
				steps(t, tr, 2)
			}
			if a, b := tensorsHash(on), tensorsHash(off); a != b {
				t.Errorf("cached %s, uncached %s", a, b)
			}
			re, err := gan.Resume(ck, on.Model(), []datasets.Dataset{ds})
			if err != nil {
				t.Fatal(err)
			}
			steps(t, re, 2)
			if a, b := tensorsHash(re), tensorsHash(off); a != b {
				t.Errorf("resumed with the cache: %s, uncached %s", a, b)
			}
		})
	}
}

func steps(t *testing.T, tr *gan.Trainer, n int) {
	t.Helper()
	for range n {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
}

// tensorsHash hashes the parameters and Adam moments of tr.
func tensorsHash(tr *gan.Trainer) string {
	h := sha256.New()
	hashTensors(h, goldenTensors(tr))
	return hex.EncodeToString(h.Sum(nil))[:32]
}
