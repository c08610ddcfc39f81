package main

import (
	"bytes"
	"strings"
	"testing"
)

// approxCLI runs "positgan approx args..." in-process and returns stdout,
// stderr and the exit status.
func approxCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"approx"}, args...), stdio{in: strings.NewReader(stdin), out: &out, err: &errb})
	return out.String(), errb.String(), code
}

// Expected outputs are worked by hand (see the tanhapprox tests for the
// bit rule): posit(16,0) tanh(1): 2x = 2 is code 0x6000, sigmoid code
// (0x6000^0x8000)>>2 = 0x3800 = 14336/16384 = 0.875, R = 0.75; tanh(2):
// s = 0x3c00/16384 = 0.9375, R = 0.875; tanh(-1): 2x = -2 is 0xa000,
// s = 0x0800/16384 = 0.125, R = -0.75.
func TestApproxEval(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"bitwise tanh", []string{"eval", "--fn", "tanh", "--method", "bitwise"},
			"0\n1\n2\n-1\n", "input,output\n0,0\n1,0.75\n2,0.875\n-1,-0.75\n"},
		// 0.3 rounds to 19/64 = 0x13 in posit(8,0); (0x13^0x80)>>2 = 0x24 = 36/64.
		{"bitwise sigmoid p8", []string{"eval", "--method", "bitwise", "--fn", "sigmoid", "--format", "posit(8,0)"},
			"1\n0.3\n", "input,output\n1,0.75\n0.3,0.5625\n"},
		// R = 0.875 > theta: 0.875 + round(0.06795·16384)/16384 = 0.875 + 1113/16384.
		{"corrected rounded", []string{"eval", "--method", "bitwise-corrected", "--rounded"},
			"2\n", "input,output\n2,0.94293212890625\n"},
		// R = 0.75 < theta: unchanged.
		{"corrected below theta", []string{"eval", "--method=bitwise-corrected"},
			"1\n", "input,output\n1,0.75\n"},
		{"specials", []string{"eval", "--method", "bitwise"},
			"nan\n+Inf\n", "input,output\nNaN,NaN\n+Inf,NaN\n"},
		// pwl:2 is min(0.7607x, 0.9178): the tail 0.9178 rounds to 59/64 in posit(8,0).
		{"pwl2 output rounded", []string{"eval", "--method", "pwl:2", "--format", "posit(8,0)"},
			"0\n10\n-10\n", "input,output\n0,0\n10,0.921875\n-10,-0.921875\n"},
		{"flags after nothing", []string{"eval", "--method", "exact", "--fn", "sigmoid"},
			"0\n", "input,output\n0,0.5\n"},
	} {
		out, stderr, code := approxCLI(t, tc.stdin, tc.args...)
		if code != 0 || out != tc.want || stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", tc.name, code, out, stderr, tc.want)
		}
	}
}

func TestApproxUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"abc\n1\n", []string{"eval"}, `line 1: "abc" is not a number`},
		{"", []string{"eval", "--method", "cubic"}, `--method "cubic"`},
		{"", []string{"eval", "--method", "pwl:1"}, "K an integer in [2,64]"},
		{"", []string{"eval", "--method", "pwl:x"}, "K an integer"},
		{"", []string{"eval", "--fn", "sigmoid", "--method", "bitwise-corrected"}, "tanh method"},
		{"", []string{"eval", "--format", "posit(16,1)"}, "need posit(n,0)"},
		{"", []string{"eval", "--format", "nosuch"}, "unknown format"},
		{"", []string{"eval", "--fn", "cosh"}, `"cosh" is not tanh or sigmoid`},
		{"", []string{"eval", "--method", "bitwise-corrected", "--theta", "1.5"}, "theta = 1.5"},
		{"", []string{"eval", "extra"}, `unexpected argument "extra"`},
		{"", []string{"table", "--grid", "1:2"}, "--grid"},
		{"", []string{"table", "--grid", "2:1:10"}, "LO <= HI"},
		{"", []string{"table", "--grid", "8:-8:0"}, `--grid "8:-8:0": want LO:HI:N`}, // issue 14 item 11: quoted "8:-8"
		{"", []string{"table", "--grid", "0:1:1"}, "2 <= N"},
		{"", []string{"table", "--codes", "x"}, "--codes"},
		{"", []string{"table", "--codes", "0.1:0.1"}, "no posit(16,0) code"},
		{"", []string{"table", "--pwl", "3,1"}, "--pwl"},
		{"", []string{"table", "--format", "posit(8,1)"}, "need posit(n,0)"},
		{"", []string{"table", "--delta", "-1"}, "delta = -1"},
		{"", []string{"table", "--fn", "tanh,relu"}, `"relu"`},
		{"", []string{"table", "--bogus"}, "flag provided but not defined"},
		{"", nil, "missing command"},
	} {
		out, stderr, code := approxCLI(t, tc.stdin, tc.args...)
		if code != 2 || out != "" {
			t.Errorf("%q: exit %d, stdout %q; want 2 and no output", tc.args, code, out)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: stderr %q, want one line containing %q", tc.args, stderr, tc.want)
		}
	}
}

// eval writes the rows before a bad line, then names it; blank lines are
// skipped (as format quantize does, issue 14 item 3).
func TestApproxEvalBadLine(t *testing.T) {
	out, stderr, code := approxCLI(t, "1\n\nabc\n2\n", "eval")
	if code != 2 || out != "input,output\n1,0.75\n" || !strings.Contains(stderr, `line 3: "abc" is not a number`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

func TestApproxHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help", "table"}, {"table", "--help"}, {"eval", "-h"}} {
		out, stderr, code := approxCLI(t, "", args...)
		if code != 0 || !strings.Contains(out, "Usage:") || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want usage on stdout and exit 0", args, code, out, stderr)
		}
	}
}

// fields returns the whitespace-separated fields of the first line of out
// that starts with prefix followed by a space, after the line starting
// with section.
func fields(out, section, prefix string) []string {
	in := false
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, section) {
			in = true
		}
		if in && strings.HasPrefix(line, prefix+" ") {
			return strings.Fields(strings.TrimPrefix(line, prefix))
		}
	}
	return nil
}

// The table reproduces the published figures on the default grid and
// says which input sets do not.
func TestApproxTable(t *testing.T) {
	out, stderr, code := approxCLI(t, "", "table", "--cost=false")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, tc := range []struct {
		section, row string
		want         []string
	}{
		// codes max, codes mean, grid max, grid mean, ns/elem, x exact
		// (the errors of every row are tanhapprox's TestErrorTable and TestCheckPublished)
		{"tanh", "bitwise", []string{"0.09800", "0.04013", "0.09801", "0.05591", "-", "-"}},
		{"sigmoid", "bitwise", []string{"0.04900", "0.01274", "0.04900", "0.03253", "-", "-"}},
		{"input set", "grid [-8,8] step 0.01 (1601)", []string{"0.09801", "0.05591", "0.03788", "0.00858", "yes"}},
		{"input set", "all finite posit(16,0) codes", []string{"0.09800", "0.04013", "0.03843", "0.01358", "no:", "plain", "mean,", "corr", "max,", "corr", "mean"}},
	} {
		if got := fields(out, tc.section, tc.row); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s / %s: %q, want %q", tc.section, tc.row, got, tc.want)
		}
	}
	if !strings.Contains(out, "So the published figures are errors over a uniform grid on [-8,8]") {
		t.Errorf("no conclusion about the published figures in\n%s", out)
	}
	again, _, _ := approxCLI(t, "", "table", "--cost=false")
	if again != out {
		t.Error("two runs without timing differ")
	}
}

func TestApproxTableCSV(t *testing.T) {
	out, stderr, code := approxCLI(t, "", "table", "--csv", "--cost=false", "--fn", "sigmoid",
		"--codes", "-1:1", "--grid", "-1:1:3", "--pwl", "3", "--pwl-out", "posit(8,0)")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// exact, bitwise, pwl:3, pwl:3 rounded; two input sets each.
	if len(lines) != 1+4*2 || lines[0] != "fn,method,inputs,n,max_err,mean_err,argmax,ns_per_elem" {
		t.Fatalf("CSV:\n%s", out)
	}
	// posit(16,0) has 2^14 codes in (0,1], 2^14 in [-1,0), and 0.
	if want := "sigmoid,exact,posit(16,0) codes in [-1,1],32769,0,0,-1,"; lines[1] != want {
		t.Errorf("line 1 = %q, want %q", lines[1], want)
	}
	// grid -1, 0, 1: sigmoid bitwise at ±1 is 0.25 and 0.75, at 0 exact.
	if !strings.HasPrefix(lines[4], "sigmoid,bitwise,grid [-1,1] N=3,3,") {
		t.Errorf("line 4 = %q", lines[4])
	}
	if !strings.HasPrefix(lines[7], "sigmoid,pwl:3 --format posit(8,0),") {
		t.Errorf("line 7 = %q", lines[7])
	}
}

// Timing fills the cost columns with numbers.
func TestApproxTableCost(t *testing.T) {
	out, _, code := approxCLI(t, "", "table", "--fn", "tanh", "--pwl", "3", "--cost-n", "1024")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	f := fields(out, "tanh", "exact")
	if len(f) != 6 || f[4] == "-" || f[5] != "1.00" {
		t.Errorf("exact row %q: want a cost and relative cost 1.00", f)
	}
}
