package formatinfo_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/formatinfo"
	"github.com/positgan/positgan/quant"
)

func ExampleWriteQuantized() {
	f := quant.MustParse("posit(8,0)")
	formatinfo.WriteQuantized(os.Stdout, []float32{1, 1.01, -100}, f)
	// Output:
	// input,code,value
	// 1,0x40,1
	// 1.01,0x40,1
	// -100,0x81,-64
}

// posit4 is posit(4,0) from its definition: codes 0..15, 0 and NaR,
// regime then fraction, negatives by two's complement.
var posit4 = map[uint32]float64{
	0x0: 0, 0x1: 0.25, 0x2: 0.5, 0x3: 0.75, 0x4: 1, 0x5: 1.5, 0x6: 2, 0x7: 4,
	0x8: math.NaN(), 0x9: -4, 0xa: -2, 0xb: -1.5, 0xc: -1, 0xd: -0.75, 0xe: -0.5, 0xf: -0.25,
}

func TestWriteCodeTable(t *testing.T) {
	var b bytes.Buffer
	if err := formatinfo.WriteCodeTable(&b, quant.MustParse("posit(4,0)")); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if lines[0] != "code,value" || len(lines) != 17 {
		t.Fatalf("got %d lines, header %q", len(lines), lines[0])
	}
	for c, want := range posit4 {
		ws := strconv.FormatFloat(want, 'g', -1, 64)
		if math.IsNaN(want) {
			ws = "NaR"
		}
		if got, w := lines[1+c], fmt.Sprintf("0x%x,%s", c, ws); got != w {
			t.Errorf("code %#x: %q, want %q", c, got, w)
		}
	}
	if err := formatinfo.WriteCodeTable(&b, quant.MustParse("posit(32,2)")); err == nil {
		t.Error("a 32-bit table: no error")
	}
}

func TestGapNearOne(t *testing.T) {
	d, err := quant.Describe(quant.MustParse("posit(8,0)"))
	if err != nil {
		t.Fatal(err)
	}
	// posit(8,0) has 5 fraction bits in [1,2) (regime 10) and in [0.5,1)
	// (regime 01): gaps 2^-5 above 1 and 2^-6 below it.
	if got, want := formatinfo.GapNearOne(d), "0.03125 (below: 0.015625, above: 0.03125)"; got != want {
		t.Errorf("GapNearOne(posit(8,0)) = %q, want %q", got, want)
	}
}

func TestPlots(t *testing.T) {
	dir := t.TempDir()
	d, _ := quant.Describe(quant.MustParse("fp8-e4m3"))
	fs := []quant.Format{quant.MustParse("posit(8,0)"), quant.MustParse("posit(16,1)"), quant.MustParse("fp32")}
	l, err := quant.NewLattice(fs)
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(string) error{
		"hist.png":    func(p string) error { return formatinfo.WriteHistogramPlot(p, d) },
		"lattice.png": func(p string) error { return formatinfo.WriteLatticePlot(p, l) },
	} {
		p := filepath.Join(dir, name)
		if err := write(p); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", name)
		}
	}
}

// posit(8,0) ⊂ posit(16,1) ⊂ fp32: posit(16,1) has more fraction bits
// and range than posit(8,0) everywhere, and at most 12 fraction bits and
// exponents within ±28, which fp32 holds. So the diagram is a chain.
func TestWriteLatticeCSV(t *testing.T) {
	fs := []quant.Format{quant.MustParse("fp32"), quant.MustParse("posit(8,0)"), quant.MustParse("posit(16,1)")}
	l, err := quant.NewLattice(fs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := formatinfo.WriteLatticeCSV(&b, l); err != nil {
		t.Fatal(err)
	}
	// Names with a comma are quoted (RFC 4180).
	if want := "lower,upper\n\"posit(8,0)\",\"posit(16,1)\"\n\"posit(16,1)\",fp32\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestWritePromotion(t *testing.T) {
	p8, p16 := quant.MustParse("posit(8,0)"), quant.MustParse("posit(16,1)")
	var b bytes.Buffer
	pr := quant.Promotion{Operands: []quant.Format{p8, p16}, Result: p16,
		Candidates: []quant.Candidate{{Format: p16, Why: "result"}, {Format: p8, Why: "lacks"}}}
	if err := formatinfo.WritePromotion(&b, pr); err != nil {
		t.Fatal(err)
	}
	want := "promote(posit(8,0), posit(16,1)) = posit(16,1)\n  posit(16,1)  result\n  posit(8,0)   lacks\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	pr.Result = nil
	formatinfo.WritePromotion(&b, pr)
	if !strings.HasPrefix(b.String(), "promote(posit(8,0), posit(16,1)): no result\n") {
		t.Errorf("no result: %q", b.String())
	}
}
