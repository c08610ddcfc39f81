package atomicfile

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestRemoveTemps: what a killed writer left (issue 15: 95 MB of
// .checkpoint.safetensors.tmp-* after eight kill -9s) is removed; a live
// writer's temporary file and every other file stay.
func TestRemoveTemps(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("pids not checked")
	}
	dir := t.TempDir()
	dead := strconv.Itoa(deadPID(t))
	files := map[string]bool{ // name → removed
		".checkpoint.safetensors.tmp-" + dead + "-123":        true,
		".log.csv.tmp-" + dead + "-9":                         true,
		".checkpoint.safetensors.tmp-2928463548":              true, // an earlier version's name
		".positgan-probe-" + dead + "-77":                     true,
		".results.md.tmp-" + strconv.Itoa(os.Getpid()) + "-5": false, // this process: live
		".results.md.tmp-1-5":                                 false, // pid 1 lives
		"checkpoint.safetensors":                              false,
		".tmp-notes":                                          false,
		".x.tmp-abc":                                          false,
	}
	for name := range files {
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644)
	}
	os.Mkdir(filepath.Join(dir, ".d.tmp-"+dead+"-1"), 0o755)
	removed, err := RemoveTemps(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, gone := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone != os.IsNotExist(err) {
			t.Errorf("%s: removed %v, want %v", name, os.IsNotExist(err), gone)
		}
		if gone != slices.Contains(removed, filepath.Join(dir, name)) {
			t.Errorf("%s: reported %v, want %v", name, !gone, gone)
		}
	}
}

// TestWriteNamesPID: Write's temporary file records this process's id.
func TestWriteNamesPID(t *testing.T) {
	dir := t.TempDir()
	var tmp string
	Write(filepath.Join(dir, "f"), func(io.Writer) error {
		es, _ := os.ReadDir(dir)
		tmp = es[0].Name()
		return nil
	})
	if want := ".f.tmp-" + strconv.Itoa(os.Getpid()) + "-"; len(tmp) <= len(want) || tmp[:len(want)] != want {
		t.Errorf("temporary file %q, want prefix %q", tmp, want)
	}
}
