//go:build unix

package regfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Open and ReadFile refuse what is not a regular file at once (a named
// pipe would block, /dev/zero never ends), read regular files, and
// ReadFile refuses a file over its limit before allocating.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	link := filepath.Join(dir, "zero.png")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "a named pipe, not a regular file"},
		{link, "a device, not a regular file"},
		{dir, "a directory, not a regular file"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		done := make(chan error, 2)
		go func() {
			f, _, err := Open(tc.path)
			if err == nil {
				f.Close()
			}
			done <- err
			_, err = ReadFile(tc.path, 0)
			done <- err
		}()
		for range 2 {
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v, want an error containing %q", tc.path, err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: still blocked after 5 s", tc.path)
			}
		}
	}
	file := filepath.Join(dir, "a.bin")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(file, 0); err != nil || string(b) != "hello" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(file, 4); err == nil || !strings.Contains(err.Error(), "5 bytes; at most 4") || !strings.Contains(err.Error(), file) {
		t.Errorf("ReadFile over its limit: %v", err)
	}
}
