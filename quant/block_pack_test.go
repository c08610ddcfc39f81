package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// packPanels returns the rows×cols matrix src cut into panels of width
// columns as a GEMM packs them (RoundPanels), the padding of the last
// panel set to pad.
func packPanels(src []float32, rows, cols, width int, pad float32) []float32 {
	npan := (cols + width - 1) / width
	buf := make([]float32, npan*rows*width)
	for p := range npan {
		for r := range rows {
			for c := range width {
				v := pad
				if j := p*width + c; j < cols {
					v = src[r*cols+j]
				}
				buf[(p*rows+r)*width+c] = v
			}
		}
	}
	return buf
}

// TestRoundPanels checks RoundPanels at every level this machine runs
// against RoundMatrix down the columns of the unpacked matrix at the
// generic level: bit for bit, except that a NaN result need only be NaN
// (see RoundPanels); panels of every width the GEMMs pack (and odd ones),
// heights below, at and above a block and not multiples of it, the last
// panel partial or whole, ordinary data (the fast paths) and data with
// zero, subnormal, extreme and non-finite blocks; the padding untouched.
func TestRoundPanels(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	rng := rand.New(rand.NewPCG(30, 91))
	formats := []string{"mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp4-e2m1", "mxint8", "posit(8,1,block=32)", "mxfp8-e4m3(block=16)", "mxfp8-e4m3(block=7)"}
	const pad = 7.25 // not on any grid of the data's blocks
	for _, name := range formats {
		b := MustParseBlock(name)
		for _, sh := range [][3]int{{1, 1, 16}, {5, 17, 16}, {32, 16, 16}, {33, 40, 32}, {64, 100, 16}, {70, 33, 8}, {256, 1024, 16}, {256, 1030, 32}, {16, 200, 6}, {48, 50, 16}, {96, 72, 24}, {64, 130, 64}, {64, 144, 72}, {320, 40, 40}} {
			rows, cols, width := sh[0], sh[1], sh[2]
			for kind := range 3 {
				var src []float32
				switch kind {
				case 0: // ordinary: N(0, 0.05²)
					src = make([]float32, rows*cols)
					for i := range src {
						src[i] = float32(rng.NormFloat64() * 0.05)
					}
				case 1:
					src = bandData(rows, cols, true, rng)
				default:
					src = rowData(rows, cols, true, rng)
				}
				useLevel(LevelGeneric)
				want := make([]float32, len(src))
				b.RoundMatrix(want, src, rows, cols, AlongColumn, Nearest, nil)
				for _, l := range levels() {
					useLevel(l)
					buf := packPanels(src, rows, cols, width, pad)
					b.RoundPanels(buf, rows, width, cols)
					got := packPanels(want, rows, cols, width, pad)
					label := fmt.Sprintf("%s at %v, %d×%d in panels of %d (data %d)", name, l, rows, cols, width, kind)
					for i, v := range buf {
						w := got[i]
						if math.Float32bits(v) != math.Float32bits(w) && !(w != w && v != v) {
							p, r, c := i/(rows*width), i%(rows*width)/width, i%width
							t.Fatalf("%s: panel %d [%d][%d] = %#x, want %#x", label, p, r, c, math.Float32bits(v), math.Float32bits(w))
						}
					}
				}
			}
		}
	}
}

// TestRoundPanelsArgs checks that RoundPanels rejects bad shapes and
// buffers too short, and does nothing on empty matrices.
func TestRoundPanelsArgs(t *testing.T) {
	b := MustParseBlock("mxfp8-e4m3")
	for _, c := range []struct {
		n, rows, width, cols int
	}{{10, 2, 0, 3}, {10, -1, 4, 3}, {10, 2, 4, -1}, {15, 2, 4, 5}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RoundPanels(len %d, %d, %d, %d) did not panic", c.n, c.rows, c.width, c.cols)
				}
			}()
			b.RoundPanels(make([]float32, c.n), c.rows, c.width, c.cols)
		}()
	}
	buf := []float32{0.3, 5}
	b.RoundPanels(buf, 0, 4, 3)
	b.RoundPanels(buf, 2, 4, 0)
	if buf[0] != 0.3 || buf[1] != 5 {
		t.Errorf("RoundPanels on an empty matrix wrote %v", buf)
	}
}

// TestFastPanels checks which panels have the vector path, at every
// level this machine runs.
func TestFastPanels(t *testing.T) {
	top := levelInUse
	defer useLevel(top)
	for _, l := range levels() {
		useLevel(l)
		vec := l != LevelGeneric && bandKernels
		for _, c := range []struct {
			name  string
			width int
			want  bool
		}{
			{"mxfp8-e4m3", 16, vec}, {"mxfp8-e5m2", 32, vec}, {"mxfp4-e2m1", 8, vec}, {"mxfp8-e4m3", 64, vec},
			{"mxfp8-e4m3", 6, false}, {"mxfp8-e4m3", 72, false}, {"mxfp8-e4m3(block=16)", 16, false},
			{"mxint8", 16, false}, {"posit(8,1,block=32)", 16, false},
		} {
			if got := MustParseBlock(c.name).FastPanels(c.width); got != c.want {
				t.Errorf("at %v: %s FastPanels(%d) = %v, want %v", l, c.name, c.width, got, c.want)
			}
		}
	}
}
