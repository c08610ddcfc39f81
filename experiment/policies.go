package experiment

// The list of policies a sweep or positgan train trains in, and how many
// steps the runs after one still have to train (for an ETA of them all).

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// SplitPolicies splits a comma-separated list of policies at the commas
// outside parentheses, so that a single format such as posit(8,1) is one
// item; the items are not trimmed (ParsePolicies trims them).
func SplitPolicies(s string) []string { return quant.SplitNames(s) }

// A NamedPolicy is a policy of a list, as ParsePolicies reads it.
type NamedPolicy struct {
	Spec   string // as given (trimmed): a preset name or a .toml file
	Label  string // the name of its run folder (PolicyLabel)
	Policy *policy.Policy
}

// ErrPolicyTwice is the error of a *ConfigError of ParsePolicies for a
// policy given twice (its Value is the policy's label).
var ErrPolicyTwice = errors.New("given twice")

// ParsePolicies parses each policy of specs (policy.Parse), in order. An
// empty name, a policy that does not parse and two policies of the same
// label (folder) are *ConfigErrors of the field Policies: the Value of
// the first is the list quoted, of the second the name, of the third
// (ErrPolicyTwice) the label.
func ParsePolicies(specs []string) ([]NamedPolicy, error) {
	var ps []NamedPolicy
	seen := map[string]bool{}
	for _, name := range specs {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, configErrorf("Policies", strconv.Quote(strings.Join(specs, ",")), "empty policy name")
		}
		p, err := policy.Parse(name)
		if err != nil {
			return nil, &ConfigError{Field: "Policies", Value: name, Err: err}
		}
		label := PolicyLabel(name)
		if seen[label] {
			return nil, &ConfigError{Field: "Policies", Value: label, Err: ErrPolicyTwice}
		}
		seen[label] = true
		ps = append(ps, NamedPolicy{Spec: name, Label: label, Policy: p})
	}
	return ps, nil
}

// LaterSteps returns the steps the runs after r in runs (those sh takes)
// still have to train, at steps each: runs with a result are finished,
// and a half-trained run counts whole, so it is an upper bound.
func LaterSteps(runs []Run, r Run, steps int, sh Shard) int {
	n, after := 0, false
	for i, q := range runs {
		if after && sh.Has(i) {
			if _, err := os.Stat(filepath.Join(q.Dir, ResultFile)); err != nil {
				n += steps
			}
		}
		after = after || q.Dir == r.Dir
	}
	return n
}
