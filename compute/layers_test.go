package compute_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/positgan/positgan/compute"
)

func fillRand(s []float64, rng *rand.Rand) {
	for i := range s {
		s[i] = rng.NormFloat64()
	}
}

// The kernel against a slow reference: reflection about the edges is
// i ↦ (n-1) - |(n-1) - |i - pad||.
func TestReflectPad(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	abs := func(v int) int { return max(v, -v) }
	refl := func(i, n, pad int) int { return (n - 1) - abs((n-1)-abs(i-pad)) }
	for _, s := range [][]int{{2, 3, 5, 7}, {1, 1, 2, 9}, {3, 2, 6, 2}} {
		b, c, h, w := s[0], s[1], s[2], s[3]
		for pad := 0; pad < min(h, w); pad++ {
			x := make([]float64, b*c*h*w)
			fillRand(x, rng)
			oh, ow := h+2*pad, w+2*pad
			y := make([]float64, b*c*oh*ow)
			compute.ReflectPad(y, x, compute.NewReflect(b*c, h, w, pad))
			for p := 0; p < b*c; p++ {
				for i := 0; i < oh; i++ {
					for j := 0; j < ow; j++ {
						got, want := y[(p*oh+i)*ow+j], x[(p*h+refl(i, h, pad))*w+refl(j, w, pad)]
						if got != want {
							t.Fatalf("%v pad %d: y[%d,%d,%d] = %v, want %v", s, pad, p, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

// The kernel against the definition y[b, c, h·r+i, w·r+j] =
// x[b, c·r²+i·r+j, h, w], both ways.
func TestPixelShuffle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range []struct{ b, c, h, w, r int }{{2, 3, 2, 5, 2}, {1, 2, 3, 1, 3}, {3, 1, 1, 1, 4}} {
		ci, oh, ow := s.c*s.r*s.r, s.h*s.r, s.w*s.r
		x := make([]float64, s.b*ci*s.h*s.w)
		fillRand(x, rng)
		y := make([]float64, len(x))
		g := compute.Shuffle{N: s.b * s.c, H: s.h, W: s.w, R: s.r}
		compute.PixelShuffle(y, x, g)
		back := make([]float64, len(x))
		compute.PixelShuffleBack(back, y, g)
		if !slices.Equal(back, x) {
			t.Errorf("%+v: backward of forward is not the identity", s)
		}
		for b := 0; b < s.b; b++ {
			for c := 0; c < s.c; c++ {
				for h := 0; h < s.h; h++ {
					for w := 0; w < s.w; w++ {
						for i := 0; i < s.r; i++ {
							for j := 0; j < s.r; j++ {
								got := y[((b*s.c+c)*oh+h*s.r+i)*ow+w*s.r+j]
								want := x[((b*ci+c*s.r*s.r+i*s.r+j)*s.h+h)*s.w+w]
								if got != want {
									t.Fatalf("%+v: y[%d,%d,%d,%d] = %v, want %v", s, b, c, h*s.r+i, w*s.r+j, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
}
