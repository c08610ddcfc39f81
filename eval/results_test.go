package eval

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hand values: [1,2,3] has mean 2 and sample std 1; [10.5,11.5] mean 11
// and std √0.5 = 0.7071…; [30,31,35] mean 32, deviations -2,-1,3, sample
// variance 14/2 = 7, std 2.6457…; [28.25] a single seed.
var testResults = []Result{
	{Policy: "float32", Metric: "FID", Values: []float64{1, 2, 3}},
	{Policy: "posit(8,1)", Metric: "FID", Values: []float64{10.5, 11.5}},
	{Policy: "float32", Metric: "PSNR | dB", Values: []float64{30, 31, 35}},
	{Policy: "fp8-e4m3", Metric: "PSNR | dB", Values: []float64{28.25}},
}

func TestSummarize(t *testing.T) {
	ss, err := Summarize(testResults)
	if err != nil {
		t.Fatal(err)
	}
	want := []Summary{
		{"float32", "FID", 3, 2, 1},
		{"posit(8,1)", "FID", 2, 11, math.Sqrt(0.5)},
		{"float32", "PSNR | dB", 3, 32, math.Sqrt(7)},
		{"fp8-e4m3", "PSNR | dB", 1, 28.25, math.NaN()},
	}
	for i, w := range want {
		g := ss[i]
		if g.Policy != w.Policy || g.Metric != w.Metric || g.N != w.N || math.Abs(g.Mean-w.Mean) > 1e-14 ||
			!(math.Abs(g.Std-w.Std) < 1e-14 || math.IsNaN(g.Std) && math.IsNaN(w.Std)) {
			t.Errorf("summary %d = %+v, want %+v", i, g, w)
		}
	}
	for _, bad := range [][]Result{
		{{Policy: "p", Metric: "m"}},
		{{Policy: "p", Metric: "m", Values: []float64{1}}, {Policy: "p", Metric: "m", Values: []float64{2}}},
	} {
		if _, err := Summarize(bad); err == nil {
			t.Errorf("Summarize(%v): no error", bad)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, testResults); err != nil {
		t.Fatal(err)
	}
	// std 1 → 1 decimal; std 0.707 → 2 decimals; std 2.65 → 1 decimal;
	// one seed → mean alone.
	want := `| policy | FID | PSNR \| dB |
|---|---:|---:|
| float32 | 2.0 ± 1.0 | 32.0 ± 2.6 |
| posit(8,1) | 11.00 ± 0.71 | – |
| fp8-e4m3 | – | 28.25 |

Mean ± sample standard deviation over seeds (the number of seeds differs between cells; see the CSV).
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteMarkdown(&b, testResults[:1])
	if !strings.HasSuffix(b.String(), "\nMean ± sample standard deviation over 3 seeds.\n") {
		t.Errorf("footer: %q", b.String())
	}
}

func TestFormatMeanStd(t *testing.T) {
	for _, tc := range []struct {
		mean, std float64
		want      string
	}{
		{2, 1, "2.0 ± 1.0"},
		{123.456, 12.3, "123 ± 12"},
		{123.456, 99.6, "123 ± 100"}, // std rounds up a digit
		{0.012345, 0.00067, "0.01235 ± 0.00067"},
		{5, 0, "5"},
		{math.Inf(1), 1, "inf"},
	} {
		if got := formatMeanStd(tc.mean, tc.std); got != tc.want {
			t.Errorf("formatMeanStd(%g, %g) = %q, want %q", tc.mean, tc.std, got, tc.want)
		}
	}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, testResults); err != nil {
		t.Fatal(err)
	}
	want := "policy,metric,n,mean,std,values\n" +
		"float32,FID,3,2,1,1;2;3\n" +
		`"posit(8,1)",FID,2,11,0.707106781186548,10.5;11.5` + "\n" +
		"float32,PSNR | dB,3,32,2.64575131106459,30;31;35\n" +
		"fp8-e4m3,PSNR | dB,1,28.25,,28.25\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestSaveResults(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "cmp")
	paths, err := SaveResults(prefix, testResults)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{prefix + ".md", prefix + ".csv", prefix + "-FID.png", prefix + "-PSNR___dB.png"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("paths %v, want %v", paths, want)
	}
	for _, p := range paths[2:] {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if r := img.Bounds(); r.Dx() < 100 || r.Dy() < 100 {
			t.Errorf("%s: %v", p, r)
		}
	}
	md, _ := os.ReadFile(prefix + ".md")
	var b bytes.Buffer
	WriteMarkdown(&b, testResults)
	if string(md) != b.String() {
		t.Errorf("cmp.md differs from WriteMarkdown")
	}
	// No temporary files left behind.
	if es, _ := os.ReadDir(dir); len(es) != len(want) {
		t.Errorf("directory holds %d entries, want %d", len(es), len(want))
	}
	// One seed each: bars without error bars.
	if _, err := BarChart([]Result{{Policy: "p", Metric: "m", Values: []float64{1}}}, "m"); err != nil {
		t.Errorf("BarChart of single seeds: %v", err)
	}
	if _, err := BarChart(testResults, "IS"); err == nil {
		t.Errorf("BarChart of a missing metric: no error")
	}
}

// With one seed there is no spread to report, and the footer says so
// instead of "over 1 seeds".
func TestWriteMarkdownOneSeed(t *testing.T) {
	var b bytes.Buffer
	rs := []Result{{Policy: "fp32", Metric: "FID", Values: []float64{1.5}}, {Policy: "posit8+", Metric: "FID", Values: []float64{1.25}}}
	if err := WriteMarkdown(&b, rs); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.HasSuffix(s, "\nOne seed per policy: each cell is that run's value, with no seed-to-seed spread measured.\n") || strings.Contains(s, "±") {
		t.Errorf("one-seed table:\n%s", s)
	}
}
