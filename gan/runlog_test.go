package gan_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

const logHead = "step,epoch,d_loss,g_loss,d_real,d_fake,loss_scale_d,loss_scale_g,skipped_d,skipped_g,step_seconds,elapsed_seconds\n"

func writeLog(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadLog(t *testing.T) {
	path := writeLog(t, logHead+
		"1,0,1.38,0.69,0.5,0.49,1,1,0,0,0.0123,0.012\n"+
		"2,1,1.2,0.8,0.6,0.4,65536,32768,1,0,0.01,0.022\n")
	rows, err := gan.ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	vals := func(d, g, dr, df, sd, sg, kd, kg float64) map[string]float64 {
		return map[string]float64{"d_loss": d, "g_loss": g, "d_real": dr, "d_fake": df,
			"loss_scale_d": sd, "loss_scale_g": sg, "skipped_d": kd, "skipped_g": kg}
	}
	want := []gan.LogRow{
		{Step: 1, Epoch: 0, Values: vals(1.38, 0.69, 0.5, 0.49, 1, 1, 0, 0), StepSeconds: 0.0123, ElapsedSeconds: 0.012},
		{Step: 2, Epoch: 1, Values: vals(1.2, 0.8, 0.6, 0.4, 65536, 32768, 1, 0), StepSeconds: 0.01, ElapsedSeconds: 0.022},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %+v, want %+v", rows, want)
	}

	// Columns are found by name: reordered and extra columns are fine.
	path = writeLog(t, "step_seconds,elapsed_seconds,skipped_g,skipped_d,loss_scale_g,loss_scale_d,d_fake,d_real,g_loss,d_loss,epoch,step,cycle_loss\n"+
		"0.5,0.5,1,0,2,4,0.1,0.9,3,2,0,7,0.25\n")
	rows, err = gan.ReadLog(path)
	w := gan.LogRow{Step: 7, Values: vals(2, 3, 0.9, 0.1, 4, 2, 0, 1), StepSeconds: 0.5, ElapsedSeconds: 0.5}
	w.Values["cycle_loss"] = 0.25
	if err != nil || len(rows) != 1 || !reflect.DeepEqual(rows[0], w) {
		t.Errorf("reordered columns: %+v, %v", rows, err)
	}

	// A header alone: no steps, no error.
	if rows, err := gan.ReadLog(writeLog(t, logHead)); err != nil || len(rows) != 0 {
		t.Errorf("header only: %v, %v", rows, err)
	}
}

func TestReadLogErrors(t *testing.T) {
	row := "1,0,1.38,0.69,0.5,0.49,1,1,0,0,0.0123,0.012\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "empty"},
		{"missing column", strings.Replace(logHead, ",step_seconds", "", 1) + "1,0,1.38,0.69,0.5,0.49,1,1,0,0,0.012\n", "line 1: no column step_seconds"},
		{"not a number", logHead + row + strings.Replace(row, "1.38", "x", 1), "line 3: column d_loss"},
		{"step not an integer", logHead + strings.Replace(row, "1,", "1.5,", 1), "line 2: column step"},
		{"short row", logHead + "1,0,1.38\n", "line 2"},
	} {
		path := writeLog(t, tc.text)
		_, err := gan.ReadLog(path)
		var le *gan.LogError
		if !errors.As(err, &le) || le.Path != path || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a *LogError for %s containing %q", tc.name, err, path, tc.want)
		}
	}
	if _, err := gan.ReadLog(filepath.Join(t.TempDir(), "none.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing log: %v", err)
	}
}

// ReadLog reads what Run writes: one row per step, and the skipped
// updates and losses Run summarises.
func TestReadLogOfRun(t *testing.T) {
	sh := datasets.Shape{C: 1, H: 8, W: 8}
	pix := make([]uint8, 16*sh.Size())
	labels := make([]int, 16)
	for i := range pix {
		pix[i] = uint8(i * 7)
	}
	for i := range labels {
		labels[i] = i % 2
	}
	ds, err := datasets.NewSet("toy", sh, pix, labels, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := models.Config{Arch: models.CGAN, ZDim: 8, Classes: 2, Channels: 1, Height: 8, Width: 8, Features: 8}
	tr := newTrainer(t, cfg, ds, gan.Options{Batch: 4, Seed: 1})
	dir := t.TempDir()
	sum, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 5})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := gan.ReadLog(sum.Log)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	var skipped int
	var dLoss float64
	for i, r := range rows {
		if r.Step != i+1 || r.Value("loss_scale_d") <= 0 || r.StepSeconds < 0 || r.ElapsedSeconds < r.StepSeconds-1e-3 {
			t.Errorf("row %d: %+v", i, r)
		}
		skipped += int(r.Value("skipped_d"))
		dLoss += r.Value("d_loss") / 5
	}
	if skipped != sum.Skipped[0] {
		t.Errorf("%d skipped D updates in the log, %d in the summary", skipped, sum.Skipped[0])
	}
	if d := dLoss - sum.MeanLosses[0]; d > 1e-5 || d < -1e-5 { // the log keeps 6 digits
		t.Errorf("mean D loss %g in the log, %g in the summary", dLoss, sum.MeanLosses[0])
	}
}
