package eval

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// FIDResamples is the number of bootstrap resamples FIDStdErr draws when
// given 0. Each costs a covariance and a Fréchet distance of the whole
// generated set (for 2048-d Inception features, about as much as one
// FID); 50 resamples estimate a standard error to within about 10% (its
// relative error is 1/sqrt(2·49)).
const FIDResamples = 50

// FIDStdErr returns the FID's sampling error due to the generated images:
// the standard deviation of FrechetDistance(ref, stats of a resample)
// over resamples bootstrap resamples (0 means FIDResamples) of the rows
// of gen, each len(gen) rows drawn with replacement, the reference held
// fixed. It says how much the FID of a generator would move if it were
// measured on other images it makes. The same seed gives the same
// value.
func FIDStdErr(ref Stats, gen mat.Matrix, resamples int, seed uint64) (float64, error) {
	if gen == nil {
		return 0, errors.New("eval: FID sampling error needs the generated images' features")
	}
	if resamples < 0 {
		return 0, fmt.Errorf("eval: %d bootstrap resamples", resamples)
	}
	if resamples == 0 {
		resamples = FIDResamples
	}
	if resamples < 2 {
		return 0, fmt.Errorf("eval: a standard error needs at least 2 resamples, have %d", resamples)
	}
	n, d := gen.Dims()
	src := mat.DenseCopyOf(gen) // rows copied whole below
	rng := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909))
	x := mat.NewDense(n, d, nil)
	fids := make([]float64, resamples)
	for k := range fids {
		for i := range n {
			x.SetRow(i, src.RawRowView(rng.IntN(n)))
		}
		st, err := StatsOf(x)
		if err != nil {
			return 0, fmt.Errorf("eval: FID sampling error: %w", err)
		}
		if fids[k], err = FrechetDistance(ref, st); err != nil {
			return 0, fmt.Errorf("eval: FID sampling error: %w", err)
		}
	}
	return stat.StdDev(fids, nil), nil
}
