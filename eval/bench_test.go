package eval

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkFrechetDistance at feature sizes up to Inception's 2048 (run
// with -benchtime=1x for the large sizes).
func BenchmarkFrechetDistance(b *testing.B) {
	for _, d := range []int{64, 256, 2048} {
		b.Run(strconv.Itoa(d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(d)))
			a := Stats{Mu: randVec(rng, d), Sigma: benchSPD(rng, d)}
			c := Stats{Mu: randVec(rng, d), Sigma: benchSPD(rng, d)}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := FrechetDistance(a, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSingularFrechet is BenchmarkFrechetDistance for statistics of
// d/2 and d/4 feature vectors, whose covariances are both singular, as
// FID of 1,000 images on Inception's 2048 features is. (The name keeps it
// out of -bench FrechetDistance.)
func BenchmarkSingularFrechet(b *testing.B) {
	for _, d := range []int{256, 2048} {
		b.Run(strconv.Itoa(d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(2, uint64(d)))
			a, err := StatsOfRows(randRows(rng, d/2, d, 0))
			if err != nil {
				b.Fatal(err)
			}
			c, err := StatsOfRows(randRows(rng, d/4, d, 0.5))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := FrechetDistance(a, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPSNR(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		rng := rand.New(rand.NewPCG(2, uint64(n)))
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = rng.Float32()*255, rng.Float32()*255
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := PSNR(x, y, 255); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "elem/s")
		})
	}
}

func expVec(rng *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = rng.ExpFloat64()
	}
	return v
}

// benchSPD returns a random positive definite diagonal-plus-rank-8 matrix,
// cheap to build at d = 2048 (a dense random product is not).
func benchSPD(rng *rand.Rand, d int) *mat.SymDense {
	s := mat.NewSymDense(d, nil)
	for i, v := range expVec(rng, d) {
		s.SetSym(i, i, v)
	}
	for range 8 {
		s.SymRankOne(s, 1, mat.NewVecDense(d, randVec(rng, d)))
	}
	return s
}
