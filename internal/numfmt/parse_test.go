package numfmt

import (
	"math"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		bitSize int
		want    float64
	}{
		{"0.1", 64, 0.1},
		{"0.1", 32, float64(float32(0.1))},
		{"0x1p-3", 64, 0.125},
		{"-Infinity", 64, math.Inf(-1)},
		{"INF", 32, math.Inf(1)},
		{"1e999", 64, math.Inf(1)},
		{"1e-999", 64, 0},
	} {
		if got, err := Parse(tc.in, tc.bitSize); err != nil || got != tc.want {
			t.Errorf("Parse(%q, %d) = %v, %v; want %v", tc.in, tc.bitSize, got, err, tc.want)
		}
	}
	if v, err := Parse("-nan", 64); err != nil || !math.IsNaN(v) {
		t.Errorf("Parse(-nan) = %v, %v", v, err)
	}
	if _, err := Parse("x1", 64); err == nil {
		t.Error("Parse(x1): no error")
	}
}

func TestExact(t *testing.T) {
	for _, tc := range []struct {
		v       float64
		bitSize int
		want    string
	}{
		{float64(float32(0.1)), 32, "0.1"},
		{float64(float32(0.1)), 64, "0.10000000149011612"},
		{math.NaN(), 64, "NaN"},
		{math.Inf(1), 32, "+Inf"},
		{math.Inf(-1), 64, "-Inf"},
	} {
		if got := Exact(tc.v, tc.bitSize); got != tc.want {
			t.Errorf("Exact(%v, %d) = %q, want %q", tc.v, tc.bitSize, got, tc.want)
		}
	}
}
