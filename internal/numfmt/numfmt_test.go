package numfmt

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0.9840192999999999, "0.9840193"}, // the noise of a mean
		{0.5, "0.5"},
		{0, "0"},
		{-2.25, "-2.25"},
		{1e21, "1e+21"},
		{2e-7, "2e-07"},
		{123456789012345, "1.23456789012345e+14"}, // 15 digits: kept
		{1.0 / 3, "0.333333333333333"},
		{0.30000000000000004, "0.3"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
	} {
		if got := Float(tc.v); got != tc.want {
			t.Errorf("Float(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestFloatReadsBack checks that Float's output reads back within one
// part in 10^15, and exactly when the shortest decimal has at most 15
// digits.
func TestFloatReadsBack(t *testing.T) {
	for _, v := range []float64{0.1, 1.0 / 7, math.Pi, 1e-300, 6.02214076e23, 0.9840192999999999, 4096, 1 << 53} {
		s := Float(v)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("Float(%v) = %q: %v", v, s, err)
		}
		if math.Abs(back-v) > 1e-15*math.Abs(v) {
			t.Errorf("Float(%v) = %q reads back as %v", v, s, back)
		}
	}
}

func TestFloat32(t *testing.T) {
	for _, tc := range []struct {
		v    float32
		want string
	}{
		{0.1, "0.1"},
		{float32(math.Log(2)), "0.6931472"},
		{1024, "1024"},
		{float32(math.Inf(-1)), "-inf"},
	} {
		if got := Float32(tc.v); got != tc.want {
			t.Errorf("Float32(%v) = %q, want %q", tc.v, got, tc.want)
		}
		if back, err := strconv.ParseFloat(Float32(tc.v), 32); err != nil || float32(back) != tc.v {
			t.Errorf("Float32(%v) reads back as %v, %v", tc.v, back, err)
		}
	}
}

func ExampleFloat() {
	var sum float64
	for _, v := range []float64{0.2, 0.4, 0.6} {
		sum += v
	}
	fmt.Println(sum/3, Float(sum/3))
	// Output: 0.4000000000000001 0.4
}
