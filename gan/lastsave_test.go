package gan_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/gan"
)

// The final checkpoint is written before the sample grid and the loss
// plot, so that a figure that cannot be written does not cost the run
// (issue 29 item 5).
func TestRunSavesBeforeFigures(t *testing.T) {
	tr := newTrainer(t, tinyDCGAN(), toyData(t, 16, 8, 1), gan.Options{Batch: 4, Seed: 1})
	dir := t.TempDir()
	// A folder where losses.png goes: writing the plot fails.
	if err := os.Mkdir(filepath.Join(dir, "losses.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background(), gan.RunOptions{Dir: dir, Steps: 2}); err == nil {
		t.Fatal("Run wrote its loss plot over a folder")
	}
	c := filepath.Join(dir, "checkpoint.safetensors")
	if _, err := os.Stat(c); err != nil {
		t.Fatalf("no final checkpoint after the plot failed: %v", err)
	}
}
