package policy

// The sparsity keys of a policy (issue 31): N:M structured sparsity of
// the weights and weight gradients per layer glob, the scorer that
// chooses the kept values, and the step after which the weight mask is
// frozen. They are kept apart from the format keys (policy.go) and apply
// after them.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/sparsity"
)

// The sparsity keys, in the order files write them.
const (
	keySparsity = iota
	keyGradSparsity
	keyScore
	keyFixedAfter
	numSparseKeys
)

var sparseKeyNames = [numSparseKeys]string{"sparsity", "grad_sparsity", "score", "fixed_after"}

// maxFixedAfter bounds fixed_after: far more steps than any run takes.
const maxFixedAfter = 1 << 40

// sparseSet is what an override sets of the sparsity keys.
type sparseSet struct {
	set [numSparseKeys]bool
	s   nn.Sparsity
}

// sparseKey returns the index of a sparsity key.
func sparseKey(key string) (int, bool) {
	for i, k := range sparseKeyNames {
		if k == key {
			return i, true
		}
	}
	return 0, false
}

// apply copies the fields o sets into s.
func (o *sparseSet) apply(s *nn.Sparsity) {
	for k := range numSparseKeys {
		if o.set[k] {
			copySparse(s, k, &o.s)
		}
	}
}

func copySparse(dst *nn.Sparsity, k int, src *nn.Sparsity) {
	switch k {
	case keySparsity:
		dst.Weight = src.Weight
	case keyGradSparsity:
		dst.Grad = src.Grad
	case keyScore:
		dst.Score = src.Score
	case keyFixedAfter:
		dst.FixedAfter = src.FixedAfter
	}
}

// parseSparse parses value as sparsity key k into s.
func parseSparse(s *nn.Sparsity, k int, value string) error {
	v := strings.TrimSpace(value)
	var err error
	switch k {
	case keySparsity, keyGradSparsity:
		if v == "" {
			return Error("want N:M (e.g. 2:4) or dense")
		}
		var p sparsity.Pattern
		if p, err = sparsity.Parse(v); err != nil {
			return err
		}
		if k == keySparsity {
			s.Weight = p
		} else {
			s.Grad = p
		}
	case keyScore:
		if v == "" {
			return Error(fmt.Sprintf("want a scorer name (%s)", strings.Join(sparsity.Scorers(), ", ")))
		}
		if _, err = sparsity.Lookup(v); err != nil {
			return err
		}
		s.Score = v
	case keyFixedAfter:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxFixedAfter {
			return Error(fmt.Sprintf("fixed_after=%s: want a step count from 0 (never) to %d", value, maxFixedAfter))
		}
		s.FixedAfter = n
	}
	return nil
}

// sparseString returns key k of s as it appears in a setting.
func sparseString(s *nn.Sparsity, k int) string {
	switch k {
	case keySparsity:
		return s.Weight.String()
	case keyGradSparsity:
		return s.Grad.String()
	case keyScore:
		if s.Score == "" {
			return sparsity.DefaultScorer
		}
		return s.Score
	}
	return strconv.Itoa(s.FixedAfter)
}

// setSparse is Set for the sparsity keys.
func (p *Policy) setSparse(glob string, k int, value string) error {
	var v nn.Sparsity
	if err := parseSparse(&v, k, value); err != nil {
		return Error(fmt.Sprintf("%s=%s: %v", sparseKeyNames[k], value, err))
	}
	if glob == "" {
		copySparse(&p.Default.Sparsity, k, &v)
		return nil
	}
	o, err := p.overrideFor(glob)
	if err != nil {
		return err
	}
	copySparse(&o.sp.s, k, &v)
	o.sp.set[k] = true
	return nil
}

// tomlSparse holds the sparsity keys of a [default] or [[layer]] table.
type tomlSparse struct {
	Sparsity     string `toml:"sparsity,omitempty"`
	GradSparsity string `toml:"grad_sparsity,omitempty"`
	Score        string `toml:"score,omitempty"`
	FixedAfter   *int   `toml:"fixed_after,omitempty"`
}

// settings returns the table's sparsity (key, value) pairs.
func (t *tomlSparse) settings() [][2]string {
	var s [][2]string
	for _, kv := range [][2]string{{"sparsity", t.Sparsity}, {"grad_sparsity", t.GradSparsity}, {"score", t.Score}} {
		if kv[1] != "" {
			s = append(s, kv)
		}
	}
	if t.FixedAfter != nil {
		s = append(s, [2]string{"fixed_after", strconv.Itoa(*t.FixedAfter)})
	}
	return s
}

// sparseTOML returns the table of the sparsity keys set says are set.
func sparseTOML(s *nn.Sparsity, set [numSparseKeys]bool) tomlSparse {
	var t tomlSparse
	if set[keySparsity] {
		t.Sparsity = sparseString(s, keySparsity)
	}
	if set[keyGradSparsity] {
		t.GradSparsity = sparseString(s, keyGradSparsity)
	}
	if set[keyScore] {
		t.Score = sparseString(s, keyScore)
	}
	if set[keyFixedAfter] {
		n := s.FixedAfter
		t.FixedAfter = &n
	}
	return t
}

// defaultSparseSet says which sparsity keys [default] writes: those that
// differ from the zero Sparsity, so that the files of dense policies are
// as before.
func defaultSparseSet(s *nn.Sparsity) [numSparseKeys]bool {
	var z nn.Sparsity
	var set [numSparseKeys]bool
	for k := range numSparseKeys {
		set[k] = sparseString(s, k) != sparseString(&z, k)
	}
	return set
}

// SparseSuffix separates a preset name from an N:M weight pattern in a
// sparse preset name: "posit8+@2:4" is posit8+ with sparsity = "2:4" on
// every layer.
const SparseSuffix = "@"

// sparsePreset returns the policy of a name of the form PRESET@N:M, and
// false if name has no '@'.
func sparsePreset(name string) (*Policy, bool, error) {
	i := strings.Index(name, SparseSuffix)
	if i < 0 {
		return nil, false, nil
	}
	base, pat := name[:i], name[i+len(SparseSuffix):]
	if strings.TrimSpace(pat) == "" {
		return nil, true, Error(fmt.Sprintf("preset %q: want PRESET@N:M (e.g. posit8+@2:4)", name))
	}
	ps, err := sparsity.Parse(pat)
	if err != nil {
		return nil, true, Error(fmt.Sprintf("preset %q: %v", name, err))
	}
	p, err := Preset(base)
	if err != nil {
		return nil, true, err
	}
	p.Name = name
	p.Default.Sparsity.Weight = ps
	return p, true, nil
}
