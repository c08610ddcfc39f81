package gan_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/gan"
)

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// A long log (averaged down to fewer points) with a NaN loss, skipped
// updates and changing loss scales plots as a PNG; a missing or malformed
// log is an error naming it.
func TestWriteLossPlot(t *testing.T) {
	var b strings.Builder
	b.WriteString(logHead)
	for s := 1; s <= 2500; s++ {
		dl := fmt.Sprint(1.4 - float64(s)/5000)
		if s == 7 {
			dl = "NaN"
		}
		fmt.Fprintf(&b, "%d,%d,%s,0.69,0.5,0.49,%d,1024,%d,0,0.01,%g\n", s, s/100, dl, 1<<(s%12), s%50/49, float64(s)/100)
	}
	logPath := writeLog(t, b.String())
	out := filepath.Join(filepath.Dir(logPath), "losses.png")
	if err := gan.WriteLossPlot(out, logPath); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, out)
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 400 {
		t.Errorf("plot of %v", b)
	}
	colours := map[uint32]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 3 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	if len(colours) < 4 {
		t.Errorf("the plot has %d colours", len(colours))
	}

	if err := gan.WriteLossPlot(out, filepath.Join(t.TempDir(), "log.csv")); err == nil {
		t.Error("missing log: no error")
	}
	bad := writeLog(t, logHead+"1,0,x\n")
	if err := gan.WriteLossPlot(out, bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("malformed log: %v", err)
	}
	// A header without steps (a run interrupted before its first step).
	if err := gan.WriteLossPlot(out, writeLog(t, logHead)); err != nil {
		t.Errorf("empty log: %v", err)
	}
}

// Run writes losses.png beside log.csv with each grid and at the end.
func TestRunWritesLossPlot(t *testing.T) {
	ds := toyData(t, 16, 8, 1)
	tr := newTrainer(t, tinyDCGAN(), ds, gan.Options{Batch: 4, Seed: 1})
	dir := t.TempDir()
	sum, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 3, SampleEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.LossPlot != filepath.Join(dir, "losses.png") {
		t.Errorf("Summary.LossPlot = %q", sum.LossPlot)
	}
	decodePNG(t, sum.LossPlot)
}

// Loss scales near the largest float64 are valid (a policy may ask for
// 1.7e308): the plot is drawn, constant or changing, long or short, and a
// log holding them never panics (issue 29).
func TestWriteLossPlotHugeScales(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rows   int
		scales func(step int) string
	}{
		{"constant", 3, func(int) string { return "1.7e308" }},
		{"max", 3, func(int) string { return "1.7976931348623157e308" }},
		{"changing", 2500, func(s int) string { return fmt.Sprint(1.7e308 / float64(1+s%3)) }},
		{"tiny", 5, func(int) string { return "5e-324" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(logHead)
			for s := 1; s <= tc.rows; s++ {
				fmt.Fprintf(&b, "%d,1,1.2,0.9,0.6,0.4,%s,%s,0,0,0.01,%g\n", s, tc.scales(s), tc.scales(s), float64(s)/100)
			}
			out := filepath.Join(t.TempDir(), "losses.png")
			if err := gan.WriteLossPlot(out, writeLog(t, b.String())); err != nil {
				t.Fatal(err)
			}
			decodePNG(t, out)
		})
	}
}
