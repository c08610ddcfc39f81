//go:build unix

package imageio

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenSpecialFiles: a named pipe (issue 29: blocked forever) and a
// link to /dev/zero (2.2 GB read) are refused at once.
func TestOpenSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	zero := filepath.Join(dir, "zero.png")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "a named pipe, not a regular file"},
		{zero, "a device, not a regular file"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Open(tc.path, Options{})
			done <- err
		}()
		select {
		case err := <-done:
			oneLine(t, err, tc.path, tc.want)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Open still blocked after 5 s", tc.path)
		}
	}
}
