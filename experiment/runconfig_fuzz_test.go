package experiment_test

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/experiment"
)

// FuzzRunConfig: any run.toml sets flags or is refused, never a panic,
// within tomlsafe's limits (issue 29 item 9).
func FuzzRunConfig(f *testing.F) {
	f.Add("steps = 100\npolicy = \"posit8+\"\nseed = 3\nlr = 0.0002\nbatch_stats = true\n")
	f.Add("steps = \"many\"\n")
	f.Add("x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n")
	f.Add("[a.b.c]\nd = 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(t.TempDir(), "run.toml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		fs := flag.NewFlagSet("train", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("steps", 1000, "")
		fs.String("policy", "fp32", "")
		fs.Uint64("seed", 1, "")
		fs.Float64("lr", 2e-4, "")
		fs.Bool("batch_stats", false, "")
		experiment.ApplyRunConfig(fs, path, map[string]bool{}, nil)
	})
}
