package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCLI runs the command line in-process and returns stdout, stderr and
// the exit status.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, stdio{in: strings.NewReader(stdin), out: &out, err: &errb})
	return out.String(), errb.String(), code
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the one-line error
	}{
		{nil, "missing command"},
		{[]string{"nosuch"}, `unknown command "nosuch"`},
		{[]string{"format"}, "missing command"},
		{[]string{"format", "table"}, "missing FORMAT"},
		{[]string{"format", "table", "posit(8,1)", "extra"}, "want one FORMAT argument"},
		{[]string{"format", "table", "--bogus", "posit(8,1)"}, "flag provided but not defined: -bogus"},
		{[]string{"format", "table", "posit(1,0)"}, "n must be in [2,32]"},
		{[]string{"format", "table", "posit(8,9)"}, "es must be in [0,4]"},
		{[]string{"format", "table", "posit(32,2)"}, "at most 16 bits"},
		{[]string{"format", "info", "warp(3)"}, `unknown format "warp"`},
		{[]string{"format", "quantize", "posit(8,1)", "--scale-exp", "x"}, "invalid value"},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2", tc.args, code)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: stderr %q, want one line containing %q", tc.args, stderr, tc.want)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{
		{"help"}, {"--help"}, {"format", "--help"}, {"format", "table", "--help"},
		{"format", "quantize", "-h"}, {"format", "info", "posit(8,1)", "--help"}, {"help", "format"},
	} {
		out, stderr, code := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(out, "Usage:") || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want usage on stdout and exit 0", args, code, out, stderr)
		}
	}
}

func TestFlagsAfterPositional(t *testing.T) {
	a, _, c1 := runCLI(t, "1\n0.3\n", "format", "quantize", "--scale-exp", "2", "posit(8,1)")
	b, _, c2 := runCLI(t, "1\n0.3\n", "format", "quantize", "posit(8,1)", "--scale-exp", "2")
	if c1 != 0 || c2 != 0 || a != b {
		t.Errorf("flag order changed the result: %q (exit %d) vs %q (exit %d)", a, c1, b, c2)
	}
	// "--" ends flags: what follows is positional even if it looks like a flag.
	_, stderr, code := runCLI(t, "", "format", "table", "--", "-x")
	if code != 2 || !strings.Contains(stderr, `"-x"`) {
		t.Errorf(`"-- -x": exit %d, stderr %q; want -x taken as the FORMAT`, code, stderr)
	}
}
