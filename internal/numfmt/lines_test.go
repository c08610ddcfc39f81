package numfmt

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestReadLines(t *testing.T) {
	xs, err := ReadLines(strings.NewReader("1\n\n 0x1p-2 \n-inf\n0.1\nabc\n2\n"), 32)
	want := []float64{1, 0.25, math.Inf(-1), float64(float32(0.1))}
	var le *LineError
	if !slices.Equal(xs, want) || !errors.As(err, &le) || *le != (LineError{6, "abc"}) {
		t.Errorf("ReadLines = %v, %v; want %v and line 6", xs, err, want)
	}
	if err.Error() != `line 6: "abc" is not a number` {
		t.Errorf("error %q", err)
	}
	if xs, err := ReadLines(strings.NewReader("0.1"), 64); err != nil || xs[0] != 0.1 {
		t.Errorf("64 bits: %v, %v", xs, err)
	}
}
