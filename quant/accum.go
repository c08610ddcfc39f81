package quant

import "fmt"

// Accumulation says how a dot product sums its products.
type Accumulation uint8

const (
	// AccumFP32 multiplies the rounded operands and sums in float32, then
	// rounds the result once: the layer-level emulation QPyTorch does.
	AccumFP32 Accumulation = iota
	// AccumQuire sums the exact products exactly and rounds once, as posit
	// hardware with a quire does.
	AccumQuire
	// AccumPerOp rounds every product and every partial sum to the
	// accumulation format, as fine-grained emulation of real low-precision
	// hardware must (Arbitor).
	AccumPerOp
)

func (a Accumulation) String() string {
	switch a {
	case AccumFP32:
		return "fp32"
	case AccumQuire:
		return "quire"
	case AccumPerOp:
		return "per-op"
	}
	return fmt.Sprintf("Accumulation(%d)", uint8(a))
}

// ParseAccumulation parses "fp32", "quire" or "per-op".
func ParseAccumulation(s string) (Accumulation, error) {
	for _, a := range []Accumulation{AccumFP32, AccumQuire, AccumPerOp} {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, FormatError("unknown accumulation " + s + " (want fp32, quire or per-op)")
}
