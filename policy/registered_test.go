package policy

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/positgan/positgan/quant"
)

// thirds is a test family registered with quant: thirds has the codes 0..7
// with values c/3, rounded to nearest.
type thirds struct{}

func (thirds) String() string { return "policy-thirds" }
func (thirds) Bits() int      { return 3 }
func (thirds) Encode(x float32) uint32 {
	if x != x {
		return 0
	}
	return uint32(min(max(math.Round(float64(x)*3), 0), 7))
}
func (thirds) Decode(c uint32) float64 { return float64(c) / 3 }

func init() {
	if err := quant.Register("policy-thirds", func(args []string) (quant.Codec, error) {
		if len(args) != 0 {
			return nil, errors.New("policy-thirds takes no arguments")
		}
		return thirds{}, nil
	}); err != nil {
		panic(err)
	}
}

// A registered format is a format like any other in policy settings and
// files: it is applied, named in the TOML and read back.
func TestRegisteredFormatInPolicy(t *testing.T) {
	p, err := Parse("fp32")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply("G/*:weight=policy-thirds"); err != nil {
		t.Fatal(err)
	}
	roundTrip(t, "policy with policy-thirds", p)
	if !strings.Contains(p.String(), `"policy-thirds"`) {
		t.Errorf("policy does not name policy-thirds:\n%s", p)
	}
	if got := p.For("G/fc1").Weight.Format; got == nil || got.String() != "policy-thirds" || got.Round(0.5) != float32(2.0/3) {
		t.Errorf("For(G/fc1).Weight = %v, want policy-thirds rounding 0.5 to 2/3", got)
	}
	if got := p.For("D/fc1").Weight; !got.IsZero() {
		t.Errorf("For(D/fc1).Weight = %v, want float32", got)
	}
}
