package eval_test

import (
	"fmt"
	"log"
	"os"

	"github.com/positgan/positgan/eval"
	"gonum.org/v1/gonum/mat"
)

func ExampleFrechetDistance() {
	// Diagonal covariances: the distance is |Δμ|² + Σ (√a_i - √b_i)²
	// = 1 + (1-2)² + (2-3)² = 3.
	a := eval.Stats{Mu: []float64{0, 0}, Sigma: mat.NewSymDense(2, []float64{1, 0, 0, 4})}
	b := eval.Stats{Mu: []float64{1, 0}, Sigma: mat.NewSymDense(2, []float64{4, 0, 0, 9})}
	d, err := eval.FrechetDistance(a, b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.6f\n", d)
	// Output: 3.000000
}

func ExampleStatsOf() {
	// Mean and covariance normalized by N-1, as numpy.cov.
	x := mat.NewDense(3, 2, []float64{
		1, 2,
		3, 6,
		5, 7,
	})
	s, err := eval.StatsOf(x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Mu)
	fmt.Printf("%v\n", mat.Formatted(s.Sigma))
	// Output:
	// [3 5]
	// ⎡4  5⎤
	// ⎣5  7⎦
}

func ExamplePSNR() {
	// One of four 8-bit values off by 51: MSE = 650.25 = 255²/100.
	a := []float32{0, 0, 0, 0}
	b := []float32{51, 0, 0, 0}
	p, err := eval.PSNR(a, b, 255)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.2f dB\n", p)
	p, _ = eval.PSNR(a, a, 255)
	fmt.Println(p)
	// Output:
	// 20.00 dB
	// +Inf
}

func ExampleWriteMarkdown() {
	rs := []eval.Result{
		{Policy: "float32", Metric: "FID", Values: []float64{1, 2, 3}},
		{Policy: "posit(8,1)", Metric: "FID", Values: []float64{10.5, 11.5, 12.5}},
	}
	if err := eval.WriteMarkdown(os.Stdout, rs); err != nil {
		log.Fatal(err)
	}
	// Output:
	// | policy | FID |
	// |---|---:|
	// | float32 | 2.0 ± 1.0 |
	// | posit(8,1) | 11.5 ± 1.0 |
	//
	// Mean ± sample standard deviation over 3 seeds.
}
