package quant

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// halves is a test family: halves(n) has the codes 0..n-1 with values c/2,
// rounded to nearest, ties to even.
type halves struct{ n int }

func (h halves) String() string { return fmt.Sprintf("halves(%d)", h.n) }
func (h halves) Bits() int {
	b := 1
	for 1<<b < h.n {
		b++
	}
	return b
}
func (h halves) Encode(x float32) uint32 {
	if x != x {
		return 0
	}
	return uint32(min(max(math.RoundToEven(float64(x)*2), 0), float64(h.n-1)))
}
func (h halves) Decode(c uint32) float64 {
	if int(c) >= h.n {
		return math.NaN()
	}
	return float64(c) / 2
}

func parseHalves(args []string) (Codec, error) {
	if len(args) != 1 {
		return nil, errors.New("halves takes (n)")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 2 || n > 1<<16 {
		return nil, fmt.Errorf("halves(n) needs 2 <= n <= 65536, got %q", args[0])
	}
	return halves{n}, nil
}

// badCodec breaks one rule of Codec, chosen by kind.
type badCodec struct{ kind string }

func (b badCodec) String() string { return "bad-" + b.kind }
func (b badCodec) Bits() int {
	if b.kind == "wide" {
		return 17
	}
	return 3
}
func (b badCodec) Encode(x float32) uint32 {
	switch b.kind {
	case "nonmonotone":
		return uint32(int(x*2)%4) & 7
	case "wrongcode":
		return 0
	}
	return uint32(min(max(int(x), 0), 7))
}
func (b badCodec) Decode(c uint32) float64 { return float64(c) }

type sliceCodec struct {
	halves
	vs []int // makes it not comparable
}

func (sliceCodec) String() string { return "uncomparable" }

func init() {
	if err := Register("halves", parseHalves); err != nil {
		panic(err)
	}
	Register("bad-nonmonotone", func([]string) (Codec, error) { return badCodec{"nonmonotone"}, nil })
	Register("bad-wrongcode", func([]string) (Codec, error) { return badCodec{"wrongcode"}, nil })
	Register("bad-wide", func([]string) (Codec, error) { return badCodec{"wide"}, nil })
	Register("misnamed", func([]string) (Codec, error) { return halves{4}, nil })
	Register("nilcodec", func([]string) (Codec, error) { return nil, nil })
	Register("uncomparable", func([]string) (Codec, error) { return sliceCodec{halves{4}, nil}, nil })
}

// A registered family parses everywhere Parse does: alone and through its
// canonical name; equal names give == formats. (policy tests that it
// parses in policy settings too.)
func TestRegisteredFamily(t *testing.T) {
	f, err := Parse(" Halves( 8 ) ")
	if err != nil {
		t.Fatal(err)
	}
	if f.String() != "halves(8)" || f.Bits() != 3 || MustParse(f.String()) != f {
		t.Errorf("Parse(halves(8)) = %v (%d bits), not == to Parse of its name", f, f.Bits())
	}
	for _, tc := range []struct{ x, want float32 }{{0.3, 0.5}, {0.25, 0}, {0.75, 1}, {1.25, 1}, {9, 3.5}, {-1, 0}} {
		if got := f.Round(tc.x); got != tc.want {
			t.Errorf("halves(8).Round(%g) = %g, want %g", tc.x, got, tc.want)
		}
	}
	if !slicesContains(Registered(), "halves") {
		t.Errorf("Registered() = %v lacks halves", Registered())
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Register refuses duplicates, built-in names and malformed names; a
// registered family's bad names and bad Codecs are errors that say why.
func TestRegisterErrors(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"halves", `"halves" is already registered`},
		{"posit", "built-in format family"},
		{"p", "built-in format family"},
		{"table", "built-in format family"},
		{"none", "built-in format family"},
		{"fp8-e4m3", "already names the built-in format fp8-e4m3"},
		{"bf16", "already names the built-in format bf16"},
		{"posit8_1", "already names the built-in format posit(8,1)"},
		{"mxfp8-e4m3", "block format"},
		{"Lns", "lower case"},
		{"lns(8)", "lower case"},
		{"", "lower case"},
		{"8bit", "starts with a letter"},
	} {
		err := Register(tc.name, parseHalves)
		var re RegisterError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "quant: register: ") {
			t.Errorf("Register(%q) = %v, want a RegisterError containing %q", tc.name, err, tc.want)
		}
	}
	if err := Register("ok-name", nil); err == nil || !strings.Contains(err.Error(), "nil ParseFunc") {
		t.Errorf("Register with nil ParseFunc = %v", err)
	}
	for _, tc := range []struct{ name, want string }{
		{"halves(1)", `quant: bad format "halves(1)": halves(n) needs 2 <= n <= 65536, got "1"`},
		{"halves", "halves takes (n)"},
		{"bad-nonmonotone", "Encode(1) = 0x2, not the code of 1 (0x1)"},
		{"bad-wrongcode", "Encode(1) = 0x0, not the code of 1 (0x1)"},
		{"bad-wide", "17 bits; a Codec must have 1 to 16 bits"},
		{"misnamed", `named "halves(4)", which is not of its family`},
		{"nilcodec", "returned no Codec"},
		{"uncomparable", "is not comparable"},
		{"nosuch(1)", `unknown format "nosuch"`},
	} {
		_, err := Parse(tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	// Two different Codecs may not share a name.
	if _, err := FromCodec(impostor{halves{8}}); err == nil || !strings.Contains(err.Error(), `two different Codecs are named "halves(8)"`) {
		t.Errorf("FromCodec of an impostor = %v", err)
	}
}

type impostor struct{ halves }

// A Codec that is a whole Format is used as it is.
func TestFromCodecFormat(t *testing.T) {
	f := MustParse("posit(8,1)")
	if g, err := FromCodec(f); err != nil || g != f {
		t.Errorf("FromCodec(posit(8,1)) = %v, %v; want it unchanged", g, err)
	}
}
