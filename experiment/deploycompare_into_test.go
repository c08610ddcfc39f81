package experiment_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/experiment"
)

// A search that fails leaves no folder DeployCompareInto made, and keeps
// one that was there.
func TestDeployCompareIntoFails(t *testing.T) {
	c := trainedCGAN(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	made := filepath.Join(t.TempDir(), "new")
	if _, _, err := experiment.DeployCompareInto(ctx, c, experiment.DeployOptions{}, made); err == nil {
		t.Fatal("DeployCompareInto with a cancelled context: no error")
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("the folder it made is still there (%v)", err)
	}
	kept := t.TempDir()
	if _, _, err := experiment.DeployCompareInto(ctx, c, experiment.DeployOptions{}, kept); err == nil {
		t.Fatal("DeployCompareInto with a cancelled context: no error")
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the folder that was there is gone: %v", err)
	}
}
