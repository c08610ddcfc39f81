package gan_test

import (
	"testing"

	"github.com/positgan/positgan/gan"
)

func TestLinearDecay(t *testing.T) {
	for _, tc := range []struct {
		step, steps int
		want        float64
	}{
		{0, 0, 1}, {500, 0, 1}, // no planned length: constant
		{0, 10, 1}, {4, 10, 1}, // first half
		{5, 10, 1}, {6, 10, 0.8}, {9, 10, 0.2}, {10, 10, 0}, {12, 10, 0},
		{0, 1, 1}, {1, 1, 0},
		{2, 5, 1}, {3, 5, 2.0 / 3}, {4, 5, 1.0 / 3},
	} {
		if got := gan.LinearDecay(tc.step, tc.steps, 1); got != tc.want {
			t.Errorf("LinearDecay(%d, %d, 1) = %g, want %g", tc.step, tc.steps, got, tc.want)
		}
	}
}
