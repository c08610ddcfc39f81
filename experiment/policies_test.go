package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestLaterSteps(t *testing.T) {
	dir := t.TempDir()
	var runs []Run
	for _, name := range []string{"a", "b", "c", "d"} {
		runs = append(runs, Run{Policy: name, Seed: 1, Dir: filepath.Join(dir, name)})
		if err := os.MkdirAll(runs[len(runs)-1].Dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// c is finished.
	if err := os.WriteFile(filepath.Join(dir, "c", ResultFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		run  int
		sh   Shard
		want int
	}{
		{0, Shard{}, 200}, // b and d
		{1, Shard{}, 100}, // d
		{3, Shard{}, 0},
		{0, Shard{Index: 0, Count: 2}, 0},   // runs 0 and 2: c is finished
		{1, Shard{Index: 1, Count: 2}, 100}, // runs 1 and 3
	} {
		if got := LaterSteps(runs, runs[tc.run], 100, tc.sh); got != tc.want {
			t.Errorf("LaterSteps(run %d, shard %v) = %d, want %d", tc.run, tc.sh, got, tc.want)
		}
	}
}

// ParsePolicies names each policy's folder and refuses an empty name, a
// policy that does not parse and two policies of one folder.
func TestParsePolicies(t *testing.T) {
	ps, err := ParsePolicies([]string{" fp32", "posit8+ "})
	if err != nil || len(ps) != 2 || ps[0].Spec != "fp32" || ps[1].Label != "posit8+" || ps[1].Policy == nil {
		t.Fatalf("ParsePolicies = %+v, %v", ps, err)
	}
	for _, tc := range []struct {
		specs []string
		value string
		twice bool
	}{
		{[]string{"fp32", " "}, `"fp32, "`, false},
		{[]string{"nosuchpolicy"}, "nosuchpolicy", false},
		{[]string{"fp32", "posit8", "fp32"}, "fp32", true},
	} {
		_, err := ParsePolicies(tc.specs)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "Policies" || ce.Value != tc.value || errors.Is(err, ErrPolicyTwice) != tc.twice {
			t.Errorf("ParsePolicies(%q) = %v", tc.specs, err)
		}
	}
}

func TestSplitPolicies(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"fp32,posit8+", []string{"fp32", "posit8+"}},
		{"posit(8,1)", []string{"posit(8,1)"}},
		{"fp32,posit(8,1,scale=3),fp(1,6,9)", []string{"fp32", "posit(8,1,scale=3)", "fp(1,6,9)"}},
		{"a,,b", []string{"a", "", "b"}},
	} {
		if got := SplitPolicies(c.in); !slices.Equal(got, c.want) {
			t.Errorf("SplitPolicies(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
