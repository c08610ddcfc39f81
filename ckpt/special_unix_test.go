//go:build unix

package ckpt

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFiles: a named pipe given as a checkpoint (issue 29:
// --checkpoint FIFO blocked forever) and a link to /dev/zero are refused
// at once, by Load and ReadSafetensors, with a one-line error naming the
// path given.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ckpt.safetensors")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	zero := filepath.Join(dir, "zero.safetensors")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "a named pipe, not a regular file"},
		{zero, "a device, not a regular file"},
		{dir, "a directory, not a regular file"},
	} {
		for name, read := range map[string]func(string) error{
			"Load":            func(p string) error { _, err := Load(p); return err },
			"ReadSafetensors": func(p string) error { _, err := ReadSafetensors(p, nil); return err },
		} {
			done := make(chan error, 1)
			go func() { done <- read(tc.path) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s(%s): %v, want one line naming it and saying %q", name, tc.path, err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s(%s): still blocked after 5 s", name, tc.path)
			}
		}
	}
}
