package experiment

import (
	"context"
	"os"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/internal/atomicfile"
)

// DeployCompareInto is DeployCompare with its files written to the
// folder dir (DeployTable.WriteFiles), as positgan deploy-compare runs
// it. The folder is made and checked writable before the long search; if
// the search fails, a folder this call made is removed again (if still
// empty) rather than left behind. It returns the table and the paths
// written.
func DeployCompareInto(ctx context.Context, c *ckpt.Checkpoint, o DeployOptions, dir string) (*DeployTable, []string, error) {
	_, statErr := os.Stat(dir)
	if err := atomicfile.MkdirWritable(dir); err != nil {
		return nil, nil, err
	}
	t, err := DeployCompare(ctx, c, o)
	if err != nil {
		if statErr != nil {
			os.Remove(dir) // only if still empty
		}
		return nil, nil, err
	}
	paths, err := t.WriteFiles(dir)
	return t, paths, err
}
