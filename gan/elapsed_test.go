package gan_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/positgan/positgan/gan"
)

// A Run continuing a run's log counts elapsed_seconds on from its last
// line instead of from zero (issue 14 item 9).
func TestRunElapsedContinues(t *testing.T) {
	tr := newTrainer(t, tinyDCGAN(), toyData(t, 16, 8, 1), gan.Options{Batch: 4, Seed: 1})
	dir := t.TempDir()
	sum, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Pretend the first two steps took 1000 s.
	data, err := os.ReadFile(sum.Log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	lines[len(lines)-1] = last[:strings.LastIndexByte(last, ',')+1] + "1000.000"
	if err := os.WriteFile(sum.Log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 4}); err != nil {
		t.Fatal(err)
	}
	rows, err := gan.ReadLog(sum.Log)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	for i, r := range rows[2:] {
		if r.ElapsedSeconds < 1000 || r.ElapsedSeconds > 1100 || (i > 0 && r.ElapsedSeconds < rows[2].ElapsedSeconds) {
			t.Errorf("step %d: elapsed_seconds %g, want 1000 and a little more", r.Step, r.ElapsedSeconds)
		}
	}
}
