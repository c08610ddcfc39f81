package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormatTable(t *testing.T) {
	out, stderr, code := runCLI(t, "", "format", "table", "posit(8,1)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "code,value" || len(lines) != 1+256 {
		t.Fatalf("got header %q and %d lines, want code,value and 257", lines[0], len(lines))
	}
	// Values worked out by hand from the posit definition (useed = 4).
	for _, want := range []string{
		"0x00,0",
		"0x01,0.000244140625", // minpos = 4^-6
		"0x30,0.5",            // 0 01 1 0000: k=-1, e=1
		"0x40,1",
		"0x58,3",    // 0 10 1 1000: 2^1 * 1.5
		"0x7f,4096", // maxpos = 4^6
		"0x80,NaR",  // NaR
		"0xc0,-1",   // two's complement of 0x40
		"0xff,-0.000244140625",
	} {
		c, _, _ := strings.Cut(want, ",")
		if got := lines[1+hexVal(t, c)]; got != want {
			t.Errorf("row %s = %q, want %q", c, got, want)
		}
	}
	// Code width follows the format: posit(12,1) needs three hex digits.
	out, _, _ = runCLI(t, "", "format", "table", "p(12,1)")
	if !strings.Contains(out, "\n0x800,NaR\n") {
		t.Errorf("posit(12,1) table lacks 0x800,NaR")
	}
}

func hexVal(t *testing.T, s string) int {
	var v int
	for _, r := range strings.TrimPrefix(s, "0x") {
		v = v*16 + strings.IndexRune("0123456789abcdef", r)
	}
	return v
}

func TestFormatQuantize(t *testing.T) {
	in := "1\n0.3\n0x1.8p-3\ninf\n-inf\nnan\n1e-30\n-5000\n  2.5  \n"
	out, stderr, code := runCLI(t, in, "format", "quantize", "posit(8,1)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Expectations from the definition: 0.3 lies between 0x22 = 0.28125 and
	// 0x23 = 0.296875 ... 0x24 = 0.3125; nearest is 0.296875. 2.5 is exactly
	// representable (0 10 1 0100).
	want := "input,code,value\n" +
		"1,0x40,1\n" +
		"0.3,0x23,0.296875\n" +
		"0.1875,0x1c,0.1875\n" +
		"+Inf,0x80,NaR\n" +
		"-Inf,0x80,NaR\n" +
		"NaN,0x80,NaR\n" +
		"1e-30,0x01,0.000244140625\n" +
		"-5000,0x81,-4096\n" +
		"2.5,0x54,2.5\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// Exponent bias 2: 0.3·4 = 1.2 lies between 1.1875 (0 10 0 0011) and
	// 1.25; the nearer is 1.1875, so 0.296875.
	out, _, _ = runCLI(t, "0.3\n", "format", "quantize", "posit(8,1)", "--scale-exp", "2")
	if out != "input,code,value\n0.3,0x43,0.296875\n" {
		t.Errorf("scale-exp 2: got %q", out)
	}
	// A bad line is named by number after the rows before it
	// (issue 14 item 3); blank lines are skipped.
	out, stderr, code = runCLI(t, "1\n2\nzwei\n4\n", "format", "quantize", "posit(8,1)")
	if code != 2 || out != "input,code,value\n1,0x40,1\n2,0x50,2\n" || !strings.Contains(stderr, `line 3: "zwei" is not a number`) {
		t.Errorf("bad line: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, stderr, code = runCLI(t, "0.3\n\n  \n1\n", "format", "quantize", "posit(8,1)")
	if code != 0 || out != "input,code,value\n0.3,0x23,0.296875\n1,0x40,1\n" {
		t.Errorf("blank lines: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, stderr, code = runCLI(t, "1\n\nx\n", "format", "quantize", "mxfp4-e2m1(block=3)")
	if code != 2 || !strings.HasPrefix(out, "input,block,scale,code,value\n1,0,") || strings.Count(out, "\n") != 2 || !strings.Contains(stderr, `line 3: "x"`) {
		t.Errorf("block format, bad line: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

func TestFormatInfo(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "hist.png")
	out, stderr, code := runCLI(t, "", "format", "info", "posit(8,1)", "--plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"bits:          8",
		"minpos:        0.000244140625",
		"maxpos:        4096",
		"range:         7.22 decades", // log10(2^24) = 7.2247
		"gap near 1:    0.0625",       // 4 fraction bits at scale 0
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(plot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("plot is not a PNG: %v", err)
	}
	// The histogram rows, as the posit definition gives them (see
	// quant's TestDescribe): one value at 2^-12, none at 2^-11, 16 in each
	// binade next to 1.
	for _, row := range []string{"  2^-12        1 #", "  2^-11        0 \n", "  2^0         16 " + strings.Repeat("#", 40)} {
		if !strings.Contains(out, row) {
			t.Errorf("info lacks histogram row %q", row)
		}
	}
	// The gap near 1 of formats that do not reach 1 (values 2^-9 to
	// 127·2^-9, or 2^-7 to 127·2^-7), or have no value below it.
	for _, tc := range []struct{ format, want string }{
		{"fixed(8,9)", "gap near 1:    none (every value is below 0.5; max 0.248046875)\n"},
		{"fixed(8,7)", "gap near 1:    0.0078125 (below: 0.0078125, above: none)\n"},
		{"fixed(8,0)", "gap near 1:    1 (below: none, above: 1)\n"},
	} {
		if out, _, _ := runCLI(t, "", "format", "info", tc.format); !strings.Contains(out, tc.want) {
			t.Errorf("info %s lacks %q:\n%s", tc.format, tc.want, out)
		}
	}
	// Too wide to enumerate: a usage error.
	if _, stderr, code := runCLI(t, "", "format", "info", "fp32"); code != 2 || !strings.Contains(stderr, "at most 16 bits") {
		t.Errorf("fp32: exit %d, stderr %q", code, stderr)
	}
	// An unwritable destination is an error and leaves nothing behind.
	_, stderr, code = runCLI(t, "", "format", "info", "posit(8,1)", "--plot", filepath.Join(dir, "nodir", "h.png"))
	if code != 1 || !strings.Contains(stderr, "nodir") {
		t.Errorf("unwritable plot: exit %d, stderr %q", code, stderr)
	}
}

// Rows of float and fixed-point tables, worked out by hand from each
// format's definition.
func TestFormatTableFloats(t *testing.T) {
	for _, tc := range []struct {
		format string
		rows   []string
	}{
		{"fp8-e4m3", []string{
			"0x01,0.001953125", // smallest subnormal 2^-9
			"0x08,0.015625",    // smallest normal 2^-6
			"0x38,1",           // exponent field 7 = bias
			"0x7e,448",         // 1.75·2^8, the OCP maximum
			"0x7f,NaN",         // S.1111.111
			"0x80,-0",          // the sign of zero is kept
			"0xff,NaN",
		}},
		{"fp8-e5m2", []string{"0x3c,1", "0x7b,57344", "0x7c,+Inf", "0x7d,NaN", "0xfc,-Inf"}},
		{"fp16", []string{"0x0001,5.960464477539063e-08", "0x3c00,1", "0x7bff,65504", "0x7c00,+Inf"}},
		{"fixed(8,4)", []string{"0x10,1", "0x7f,7.9375", "0x80,-8", "0xff,-0.0625"}},
	} {
		out, stderr, code := runCLI(t, "", "format", "table", tc.format)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.format, code, stderr)
			continue
		}
		for _, row := range tc.rows {
			if !strings.Contains(out, "\n"+row+"\n") {
				t.Errorf("%s table lacks row %s", tc.format, row)
			}
		}
	}
	// A saturating format: +Inf and values beyond 448 give 448 (code 0x7e).
	out, _, _ := runCLI(t, "500\ninf\n0.001\n", "format", "quantize", "fp8-e4m3")
	if want := "input,code,value\n500,0x7e,448\n+Inf,0x7e,448\n0.001,0x01,0.001953125\n"; out != want {
		t.Errorf("fp8-e4m3 quantize: got %q, want %q", out, want)
	}
	out, _, _ = runCLI(t, "", "format", "info", "fp8-e4m3")
	for _, want := range []string{"min positive:  0.001953125", "min normal:    0.015625", "max:           448"} {
		if !strings.Contains(out, want) {
			t.Errorf("fp8-e4m3 info lacks %q", want)
		}
	}
}

// Block formats: each run of block inputs is one block. Expectations from
// the OCP MX conversion worked out by hand.
func TestFormatQuantizeBlocks(t *testing.T) {
	// mxfp4-e2m1(block=3): block 0 = 5, 0.25, 0.3: max 5 has floor(log2) 2,
	// E2M1's largest normal 6 has exponent 2, so scale 2^0 (code 0x7f); 5
	// ties 4 and 6 (codes 0x6, 0x7): 4; 0.25 ties 0 and 0.5: 0; 0.3 → 0.5.
	// Block 1 = 100, -1, nan: NaN block (0xff), every value NaN, codes 0.
	// Block 2 = 0 (short): scale 2^-127 (0x00).
	in := "5\n0.25\n0.3\n100\n-1\nnan\n0\n"
	out, stderr, code := runCLI(t, in, "format", "quantize", "mxfp4-e2m1(block=3)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "input,block,scale,code,value\n" +
		"5,0,0x7f,0x6,4\n" +
		"0.25,0,0x7f,0x0,0\n" +
		"0.3,0,0x7f,0x1,0.5\n" +
		"100,1,0xff,0x0,NaN\n" +
		"-1,1,0xff,0x0,NaN\n" +
		"NaN,1,0xff,0x0,NaN\n" +
		"0,2,0x00,0x0,0\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// mxfp8-e4m3: 1000 → scale 2 (0x80), 500 clamps to 448 (0x7e); -1 is
	// -0.5·2 (0xb0).
	out, _, _ = runCLI(t, "1000\n-1\n", "format", "quantize", "mxfp8-e4m3")
	if want := "input,block,scale,code,value\n1000,0,0x80,0x7e,896\n-1,0,0x80,0xb0,-1\n"; out != want {
		t.Errorf("mxfp8-e4m3: got %q, want %q", out, want)
	}
	// posit(8,1,block=2): max 3 → bias k = 2-1 = 1 (0x01): 3·2 = 6 is
	// 0 110 0 100 (regime 110, exponent 0, fraction 100: 0x64); 0.3·2 = 0.6
	// → 0.59375 (0x33) → 0.296875.
	out, _, _ = runCLI(t, "3\n0.3\n", "format", "quantize", "posit(8,1,block=2)")
	if want := "input,block,scale,code,value\n3,0,0x01,0x64,3\n0.3,0,0x01,0x33,0.296875\n"; out != want {
		t.Errorf("posit block: got %q, want %q", out, want)
	}
	if _, stderr, code := runCLI(t, "1\n", "format", "quantize", "mxint8", "--scale-exp", "2"); code != 2 || !strings.Contains(stderr, "no --scale-exp") {
		t.Errorf("--scale-exp with a block format: exit %d, stderr %q", code, stderr)
	}
	out, stderr, code = runCLI(t, "", "format", "info", "mxfp6-e3m2")
	if code != 0 {
		t.Fatalf("info: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"format:        mxfp6-e3m2 (block-scaled)",
		"block:         32 consecutive values",
		"storage:       6 bits per element + 8 per block = 6.25 bits per value",
		"E8M0 (OCP MX v1.0): code s is 2^(s-127)",
		"2^(floor(log2 max|v|) - 4)",
		"format:        fp6-e3m2\n",
		"max:           28\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mxfp6-e3m2 info lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runCLI(t, "", "format", "info", "posit(8,1,block=32)")
	if !strings.Contains(out, "k = 2 - floor(log2 max|finite v|)") || !strings.Contains(out, "format:        posit(8,1)\n") {
		t.Errorf("block posit info:\n%s", out)
	}
	// The element formats have tables of their own.
	out, _, _ = runCLI(t, "", "format", "table", "fp4-e2m1")
	if !strings.Contains(out, "\n0x7,6\n") || !strings.Contains(out, "\n0x1,0.5\n") {
		t.Errorf("fp4-e2m1 table:\n%s", out)
	}
}

// Lookup-table formats work from the command line: quantize rounds to the
// nearest value (a tie to the even code), saturates, and sends NaN to the
// first unused code; a policy file naming an inline table and a table read
// from `format table`'s CSV trains, and resumes from its checkpoint.
func TestFormatLookupTable(t *testing.T) {
	in := "0.1\n0.125\n0.375\n-0.6\n7\n-inf\nnan\n-0\n"
	out, stderr, code := runCLI(t, in, "format", "quantize", "table(-1,-0.25,0,0.25,1)")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 0.125 ties 0 (code 2) and 0.25 (code 3): the even code 2 wins.
	// -0.6 is 0.35 from -0.25 and 0.4 from -1. Five values need 3 bits,
	// so codes 5..7 are unused and NaN takes 5.
	want := "input,code,value\n" +
		"0.1,0x2,0\n" +
		"0.125,0x2,0\n" +
		"0.375,0x3,0.25\n" +
		"-0.6,0x1,-0.25\n" +
		"7,0x4,1\n" +
		"-Inf,0x0,-1\n" +
		"NaN,0x5,NaN\n" +
		"-0,0x2,0\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}

	dir := t.TempDir()
	csv := filepath.Join(dir, "p8.csv")
	if err := os.WriteFile(csv, []byte(mustRun(t, "format", "table", "posit(8,1)")), 0o644); err != nil {
		t.Fatal(err)
	}
	// A table on the command line is read; the checkpoint carries its
	// values, so its samples are drawn with the file gone.
	data := writeIDX(t, dir, 16)
	o := filepath.Join(dir, "run")
	common := []string{"--dataset", data, "--batch", "4", "--features", "2", "--out", o}
	mustRun(t, append([]string{"train", "--policy", "table:" + csv, "--steps", "2"}, common...)...)
	if !exists(filepath.Join(o, "checkpoint.safetensors")) {
		t.Fatalf("no checkpoint in %s", o)
	}
	mustRun(t, append([]string{"train", "--resume", "--policy", "table:" + csv, "--steps", "3"}, common...)...)
	if err := os.Remove(csv); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "sample", "--checkpoint", filepath.Join(o, "checkpoint.safetensors"), "--out", filepath.Join(dir, "s.png"))

	// A policy file naming a table file is refused: files from elsewhere
	// never make positgan open another path (issue 29).
	policy := filepath.Join(dir, "tables.toml")
	toml := "name = \"tables\"\npreset = \"fp32\"\n\n[default]\n" +
		"weight = \"table(-1,-0.5,-0.25,-0.125,-0.0625,0,0.0625,0.125,0.25,0.5,1,nan)\"\n" +
		"act = \"table:/etc/passwd\"\n"
	if err := os.WriteFile(policy, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runCLI(t, "", append([]string{"train", "--policy", policy, "--steps", "2"}, append(common[:len(common)-1], filepath.Join(dir, "run2"))...)...)
	if code == 0 || !strings.Contains(stderr, "names a file") || strings.Contains(stderr, "root:") {
		t.Errorf("a policy naming table:/etc/passwd: exit %d: %s", code, stderr)
	}
}
