package quant

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A Codec is the least a number format must provide to be used by name:
// its canonical name, its width, and the conversions between values and
// codes. FromCodec (and so Parse, for a registered family) derives the
// rest of Format from it.
//
// A Codec should be a small comparable value; its String must be a name
// that its family's ParseFunc parses back to an equal Codec.
type Codec interface {
	// String returns the canonical name, e.g. "lns(8,3)".
	String() string
	// Bits returns the width of a code, at most 16 unless the Codec is a
	// whole Format.
	Bits() int
	// Encode returns the code x rounds to. It defines the format's
	// rounding and must be monotone: a larger x never gets a code of a
	// smaller value. Non-finite x may get any code.
	Encode(x float32) uint32
	// Decode returns the exact value of code c, NaN if it has none.
	Decode(c uint32) float64
}

// Encoder64 is implemented by Codecs that can round a float64 directly;
// FromCodec then uses it for Round64 (see FromCodec).
type Encoder64 interface {
	Encode64(x float64) uint32
}

// ParseFunc returns the Codec for the arguments of a registered name:
// nil for "lns", ["8","3"] for "lns(8,3)". Arguments are lower case, with
// spaces removed. Errors should say what is wrong with the arguments.
type ParseFunc func(args []string) (Codec, error)

// RegisterError reports a family that cannot be registered.
type RegisterError string

func (e RegisterError) Error() string { return "quant: register: " + string(e) }

// The registry is package state, as image.RegisterFormat's and
// database/sql.Register's are: a format family is registered once, by the
// package that defines it (usually in its init), and must then be found by
// every Parse — in policy files, checkpoints and command lines — none of
// which has a registry to pass around.
var registry = struct {
	sync.RWMutex
	parse map[string]ParseFunc
	// made interns the Formats built from Codecs, by name, so that equal
	// names give == Formats and each table is built once.
	made map[string]madeFormat
}{parse: map[string]ParseFunc{}, made: map[string]madeFormat{}}

type madeFormat struct {
	codec Codec // what it was built from; nil for tables
	f     Format
}

// builtinHeads are the families Parse knows without the registry.
var builtinHeads = []string{"posit", "p", "float", "fp", "fixed", "table", "none"}

var registerName = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)

// Register adds the format family name, whose names are name and
// name(args...), parsed by parse. Parse, and through it policies, policy
// files, checkpoints and the positgan commands, then accept them.
//
// name must be lower case, start with a letter and hold only letters,
// digits, '_', '.' and '-'. Registering a name twice, or one that Parse
// already accepts (posit, fp8-e4m3, table, ...), is an error.
// Register is safe for concurrent use; packages usually call it from init.
func Register(name string, parse ParseFunc) error {
	switch {
	case parse == nil:
		return RegisterError(fmt.Sprintf("%q: nil ParseFunc", name))
	case !registerName.MatchString(name):
		return RegisterError(fmt.Sprintf("%q: a family name is lower case, starts with a letter and holds only letters, digits, '_', '.' and '-'", name))
	case slices.Contains(builtinHeads, name):
		return RegisterError(fmt.Sprintf("%q is a built-in format family", name))
	}
	if f, err := parseBuiltin(name); err == nil {
		return RegisterError(fmt.Sprintf("%q already names the built-in format %v", name, f))
	}
	if isBlockName(name) {
		return RegisterError(fmt.Sprintf("%q already names a built-in block format", name))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.parse[name]; dup {
		return RegisterError(fmt.Sprintf("%q is already registered", name))
	}
	registry.parse[name] = parse
	return nil
}

// Registered returns the registered family names, sorted.
func Registered() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.parse))
	for n := range registry.parse {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// parseRegistered parses a name of a registered family; ok is false if
// head is not registered.
func parseRegistered(name, head string, args []string) (f Format, ok bool, err error) {
	registry.RLock()
	parse, ok := registry.parse[head]
	registry.RUnlock()
	if !ok {
		return nil, false, nil
	}
	c, err := parse(args)
	if err != nil {
		return nil, true, fmt.Errorf("quant: bad format %q: %w", name, err)
	}
	if c == nil {
		return nil, true, FormatError(fmt.Sprintf("%q: the ParseFunc registered for %s returned no Codec", name, head))
	}
	if h, _, _, _ := splitCall(strings.ToLower(c.String())); h != head {
		return nil, true, FormatError(fmt.Sprintf("%q: the Codec registered as %s is named %q, which is not of its family", name, head, c.String()))
	}
	f, err = FromCodec(c)
	return f, true, err
}

// FromCodec returns the Format of c: c itself if it implements Format
// (then its own kernels are used), else a Format derived from Encode and
// Decode, which needs Bits() <= 16. The derived format rounds exactly as
// Decode(Encode(x)) for every float32 x, in every method:
//
//   - Round and RoundSlice find x among the thresholds where Encode
//     changes value, found by bisection when the format is built (so
//     Encode must be monotone); RoundSlice runs at a few ns per element.
//   - Round64 uses Encode64 if c implements Encoder64; otherwise a
//     float64 lying strictly between the two float32s where Encode
//     changes rounds by the midpoint of the two values if that lies
//     between them, else by taking the float32 that Encode sends to the
//     even code as the tie point. This is exact for formats whose ties
//     are midpoints or float32 values (floats, posits, fixed point).
//   - RoundSliceStochastic rounds to one of the two bracketing values,
//     the upper with probability (x-lo)/(hi-lo); beyond the extreme
//     values it saturates; ±Inf and NaN go through Encode.
//
// FromCodec checks that Encode(v) is the code of v for every value v that
// is a float32, and that Encode is monotone. Formats are interned by
// name: FromCodec of an equal Codec returns the same Format, and a
// different Codec with the same name is an error. Building a 16-bit
// format takes some tens of milliseconds.
func FromCodec(c Codec) (Format, error) {
	if c == nil {
		return nil, FormatError("nil Codec")
	}
	if !reflect.TypeOf(c).Comparable() {
		return nil, FormatError(fmt.Sprintf("%s: Codec type %T is not comparable (Formats must compare with ==)", c, c))
	}
	if f, ok := c.(Format); ok {
		return f, nil
	}
	if b := c.Bits(); b < 1 || b > 16 {
		return nil, FormatError(fmt.Sprintf("%s: %d bits; a Codec must have 1 to 16 bits (wider formats must implement Format)", c, b))
	}
	name := c.String()
	registry.RLock()
	m, ok := registry.made[name]
	registry.RUnlock()
	if ok {
		if m.codec != c {
			return nil, FormatError(fmt.Sprintf("two different Codecs are named %q", name))
		}
		return m.f, nil
	}
	t, err := newCodecLookup(c)
	if err != nil {
		return nil, err
	}
	return intern(name, c, t)
}

// intern returns the format interned under name, adding f if there is
// none (two goroutines may build the same format; the first one wins).
func intern(name string, c Codec, f Format) (Format, error) {
	registry.Lock()
	defer registry.Unlock()
	if m, ok := registry.made[name]; ok {
		if m.codec != c {
			return nil, FormatError(fmt.Sprintf("two different Codecs are named %q", name))
		}
		return m.f, nil
	}
	registry.made[name] = madeFormat{c, f}
	return f, nil
}
