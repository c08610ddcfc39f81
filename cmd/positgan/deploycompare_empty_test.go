package main

import (
	"os"
	"path/filepath"
	"testing"
)

// deploy-compare that fails leaves no empty output folder behind: a
// missing checkpoint fails before the folder is made (issue 29 item 11).
func TestDeployCompareLeavesNoEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "table")
	_, _, code := runCLI(t, "", "deploy-compare", "--checkpoint", filepath.Join(dir, "missing.safetensors"), "--out", out)
	if code == 0 {
		t.Fatal("deploy-compare of a missing checkpoint succeeded")
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("deploy-compare left %s behind", out)
	}
}
