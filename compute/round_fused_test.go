package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/positgan/positgan/quant"
)

// fusedData returns n values of several magnitudes with zeros of both
// signs, infinities, NaNs and the formats' ties among them.
func fusedData(rng *rand.Rand, n int) []float32 {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 1.0625, 1.5, -0.75, 3.0517578e-05, 1e30, -1e-30, 0.1875}
	x := make([]float32, n)
	for i := range x {
		if rng.IntN(5) == 0 {
			x[i] = special[rng.IntN(len(special))]
		} else {
			x[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(20)-10)))
		}
	}
	return x
}

// fusedRounders returns the rounders the fused copies are checked with:
// none, element-wise formats to nearest (one rounds +0 to a nonzero
// value: the padding must stay +0) and stochastic rounding (not fused:
// its stream runs in tensor order).
func fusedRounders(t *testing.T) []*Rounder {
	qs := []*Rounder{nil}
	for _, s := range []string{"posit(8,1)", "posit(8,2,scale=3)", "fp8-e4m3", "fp8-e5m2", "fp8-ibm-fwd", "table(0.5,1.5,nan)"} {
		f, err := quant.Parse(s)
		if err != nil {
			t.Logf("%s: %v", s, err)
			continue
		}
		qs = append(qs, NewRounder(f, quant.Nearest, nil))
	}
	qs = append(qs, NewRounder(quant.MustParse("posit(8,1)"), quant.Stochastic, rand.NewPCG(3, 4)))
	return qs
}

// roundRef is q's rounding from its definition, element by element (a
// stochastic q: nil, no reference).
func roundRef(q *Rounder, x []float32) []float32 {
	y := append([]float32(nil), x...)
	if q.IsIdentity() {
		return y
	}
	for i, v := range x {
		y[i] = q.f.Round(v)
	}
	return y
}

func sameBits(t *testing.T, name string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			t.Fatalf("%s: [%d] = %#x, want %#x", name, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
		}
	}
}

// TestPadImagesRound checks PadImagesRound against rounding by the
// format's definition then padding by PadImagesRound's definition (pixel
// (y, x) of a padded plane is the rounded image's (y-PH, x-PW), zero
// around it), bit for bit, NaNs aside (their payloads are the rounding
// kernels' own), at odd sizes, planes of one to hundreds in a run and
// planes larger than a run; and that it declines, writing nothing,
// where it cannot fuse. Run it at each POSITGAN_CPU level.
func TestPadImagesRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 72))
	for _, q := range fusedRounders(t) {
		for _, sz := range [][4]int{{1, 1, 1, 1}, {2, 3, 5, 7}, {3, 2, 9, 33}, {1, 4, 32, 32}, {3, 50, 12, 14}, {1, 2, 100, 100}} {
			for _, p := range [][2]int{{0, 0}, {1, 1}, {0, 2}, {3, 1}} {
				n, c, h, w := sz[0], sz[1], sz[2], sz[3]
				g := Geom{C: c, H: h, W: w, PH: p[0], PW: p[1]}
				hp, wp := h+2*p[0], w+2*p[1]
				x := fusedData(rng, n*c*h*w)
				x0 := append([]float32(nil), x...)
				size := n * c * hp * wp
				got := fusedData(rng, size+5)
				before := append([]float32(nil), got...)
				name := fmt.Sprintf("%v %v pad %v", rname(q), sz, p)
				ok := PadImagesRound(q, got, x, n, g)
				sameBits(t, name+" (input)", x, x0)
				// Only the element-wise roundings to nearest fuse, not
				// stochastic rounding.
				want := q.IsIdentity() || q.rng == nil
				if ok != want {
					t.Fatalf("%s: PadImagesRound = %v, want %v", name, ok, want)
				}
				if !ok {
					sameBits(t, name+" (declined)", got, before)
					if PadImagesRoundInto(q, got, make([]float32, n*c*h*w), x, n, g) {
						t.Fatalf("%s: PadImagesRoundInto did not decline", name)
					}
					sameBits(t, name+" (declined into)", got, before)
					continue
				}
				xr := roundRef(q, x)
				ref := make([]float32, size)
				for k := range n * c {
					for y := range h {
						copy(ref[(k*hp+y+p[0])*wp+p[1]:], xr[(k*h+y)*w:(k*h+y+1)*w])
					}
				}
				sameBits(t, name, got[:size], ref)
				sameBits(t, name+" (past the end)", got[size:], before[size:])

				// PadImagesRoundInto: the same padded images, and the
				// rounded images in t.
				got2 := fusedData(rng, size)
				tq := fusedData(rng, n*c*h*w+3)
				tq0 := append([]float32(nil), tq...)
				if !PadImagesRoundInto(q, got2, tq, x, n, g) {
					t.Fatalf("%s: PadImagesRoundInto declined", name)
				}
				sameBits(t, name+" (into)", got2, ref)
				sameBits(t, name+" (into, t)", tq[:n*c*h*w], xr)
				sameBits(t, name+" (into, past t)", tq[n*c*h*w:], tq0[n*c*h*w:])
			}
		}
	}
}

// TestTransposeRound checks MatrixToImagesRound and ImagesToMatrixRound
// against the unfused sequence (the layout copy, then RoundSlice of the
// whole) for every rounder, stochastic ones with the same stream, and
// against their definitions for the deterministic ones, at plane sizes
// around the fused kernels' thresholds.
func TestTransposeRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 73))
	for _, q := range fusedRounders(t) {
		for _, sz := range [][3]int{{1, 1, 1}, {2, 3, 7}, {3, 5, 64}, {2, 7, 100}, {2, 3, 512}, {1, 9, 600}, {5, 40, 16}, {3, 40, 300}, {2, 3, 9000}, {70, 2, 200}} {
			n, c, p := sz[0], sz[1], sz[2]
			src := fusedData(rng, n*c*p)
			for _, withBias := range []bool{false, true} {
				var bias []float32
				if withBias {
					bias = fusedData(rng, c)
				}
				name := fmt.Sprintf("%v %v bias %v", rname(q), sz, withBias)
				// The unfused sequence, with a copy of a stochastic
				// rounder's source.
				qs := q
				if q != nil && q.rng != nil {
					qs = NewRounder(q.f, quant.Stochastic, clonePCG(q.rng))
				}
				want := make([]float32, n*c*p)
				MatrixToImages(want, src, bias, n, c, p)
				RoundSlice(qs, want, want)
				if q == nil || q.rng == nil {
					def := make([]float32, n*c*p)
					for b := range n {
						for ch := range c {
							for i := range p {
								v := src[ch*n*p+b*p+i]
								if bias != nil {
									v += bias[ch]
								}
								def[(b*c+ch)*p+i] = v
							}
						}
					}
					sameBits(t, name+" (definition)", want, roundRef(q, def))
				}
				got := make([]float32, n*c*p)
				MatrixToImagesRound(q, got, src, bias, n, c, p)
				sameBits(t, "MatrixToImagesRound "+name, got, want)
			}
			qs := q
			if q != nil && q.rng != nil {
				qs = NewRounder(q.f, quant.Stochastic, clonePCG(q.rng))
			}
			want := make([]float32, n*c*p)
			ImagesToMatrix(want, src, n, c, p)
			RoundSlice(qs, want, want)
			got := make([]float32, n*c*p)
			ImagesToMatrixRound(q, got, src, n, c, p)
			sameBits(t, fmt.Sprintf("ImagesToMatrixRound %v %v", rname(q), sz), got, want)
		}
	}
}

// clonePCG returns a source in r's state.
func clonePCG(r *rand.PCG) *rand.PCG {
	b, err := r.MarshalBinary()
	if err != nil {
		panic(err)
	}
	c := new(rand.PCG)
	if err := c.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	return c
}

// rname names q in failures.
func rname(q *Rounder) string {
	switch {
	case q.IsIdentity():
		return "none"
	case q.rng != nil:
		return q.f.String() + " stochastic"
	}
	return q.f.String()
}
