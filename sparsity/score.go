package sparsity

import (
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"slices"
	"sync"
)

// A Key says which tensor, at which training step of which run, a Scorer
// scores. Deterministic scorers ignore it; stochastic ones (random) must
// draw from it alone, so that a run resumed from a checkpoint computes the
// same masks bit for bit.
type Key struct {
	Seed   uint64 // the run's seed
	Step   uint64 // the training step
	Tensor uint64 // the tensor, e.g. TensorID of its name
}

// TensorID returns a stable identifier for a tensor name (64-bit FNV-1a),
// for Key.Tensor.
func TensorID(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// A Scorer sets dst[i] to the score of value w[i]; the mask keeps the
// highest scores of each block. dst and w have equal lengths and may be
// the same slice. The score of w[i] may depend only on w[i], i and k,
// never on the slice's length or on other values, so that a tensor scored
// whole or in pieces gets the same scores.
type Scorer func(dst, w []float64, k Key)

// Abs scores a value by its magnitude, |w|: the mask keeps the largest.
func Abs(dst, w []float64, _ Key) {
	if len(dst) != len(w) {
		panic(errLength)
	}
	for i, v := range w {
		dst[i] = math.Abs(v)
	}
}

// Random scores every value with a pseudo-random number in [0, 1) drawn
// from k and the value's index alone (SplitMix64), so that masks are
// random, yet the same for the same seed, step and tensor.
func Random(dst, w []float64, k Key) {
	if len(dst) != len(w) {
		panic(errLength)
	}
	base := mix(mix(mix(k.Seed)^k.Step) ^ k.Tensor)
	for i := range dst {
		dst[i] = float64(mix(base+uint64(i))>>11) / (1 << 53)
	}
}

// mix is SplitMix64's output function on x advanced by one step.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// RegisterError reports a scorer that cannot be registered.
type RegisterError string

func (e RegisterError) Error() string { return "sparsity: register: " + string(e) }

// ScorerError reports a scorer name that is not registered.
type ScorerError string

func (e ScorerError) Error() string { return "sparsity: unknown scorer " + string(e) }

// DefaultScorer is the scorer an empty name selects.
const DefaultScorer = "abs"

// The registry is package state, as quant's format registry is: a scorer
// is registered once, by the package that defines it (usually in its
// init), and must then be found by name in policies and checkpoints.
var registry = struct {
	sync.RWMutex
	m map[string]Scorer
}{m: map[string]Scorer{"abs": Abs, "random": Random}}

var registerName = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)

// Register adds the scorer s under name; policies then accept
// score = "name". name must be lower case, start with a letter and hold only
// letters, digits, '_', '.' and '-'; registering a name twice, or one of
// the built-in names (abs, random), is an error. Register is safe for
// concurrent use; packages usually call it from init.
func Register(name string, s Scorer) error {
	switch {
	case s == nil:
		return RegisterError(fmt.Sprintf("%q: nil Scorer", name))
	case !registerName.MatchString(name):
		return RegisterError(fmt.Sprintf("%q: a scorer name is lower case, starts with a letter and holds only letters, digits, '_', '.' and '-'", name))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[name]; dup {
		return RegisterError(fmt.Sprintf("%q is already registered", name))
	}
	registry.m[name] = s
	return nil
}

// Lookup returns the scorer registered as name; "" is DefaultScorer.
func Lookup(name string) (Scorer, error) {
	if name == "" {
		name = DefaultScorer
	}
	registry.RLock()
	s, ok := registry.m[name]
	registry.RUnlock()
	if !ok {
		return nil, ScorerError(fmt.Sprintf("%q (registered: %v)", name, Scorers()))
	}
	return s, nil
}

// Scorers returns the registered scorer names, sorted.
func Scorers() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
