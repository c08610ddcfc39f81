package formatinfo_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/positgan/positgan/formatinfo"
	"github.com/positgan/positgan/internal/numfmt"
	"github.com/positgan/positgan/quant"
)

// QuantizeLines writes WriteQuantized's rows of the numbers before a bad
// line, then reports that line; a bad first line writes nothing.
func TestQuantizeLines(t *testing.T) {
	f, err := quant.Parse("posit(8,1)")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	if err := formatinfo.WriteQuantized(&want, []float32{1, 0.3}, f); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	err = formatinfo.QuantizeLines(&got, strings.NewReader("1\n\n0.3\nx\n2\n"), f)
	var le *numfmt.LineError
	if !errors.As(err, &le) || le.Line != 4 || got.String() != want.String() {
		t.Errorf("QuantizeLines wrote %q, %v; want %q and line 4", got.String(), err, want.String())
	}
	got.Reset()
	if err := formatinfo.QuantizeLines(&got, strings.NewReader("x\n"), f); !errors.As(err, &le) || got.Len() != 0 {
		t.Errorf("bad first line: wrote %q, %v", got.String(), err)
	}
	b, err := quant.ParseBlock("mxfp8-e4m3")
	if err != nil {
		t.Fatal(err)
	}
	want.Reset()
	got.Reset()
	if err := formatinfo.WriteQuantizedBlocks(&want, []float32{1, -2, 0.5}, b); err != nil {
		t.Fatal(err)
	}
	if err := formatinfo.QuantizeBlockLines(&got, strings.NewReader("1\n-2\n0.5\n"), b); err != nil || got.String() != want.String() {
		t.Errorf("QuantizeBlockLines wrote %q, %v; want %q", got.String(), err, want.String())
	}
	var re *formatinfo.ReadError
	if err := formatinfo.QuantizeLines(&got, iotestErr{}, f); !errors.As(err, &re) {
		t.Errorf("reader error: %v, want a *ReadError", err)
	}
}

// iotestErr is a reader that fails.
type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }
