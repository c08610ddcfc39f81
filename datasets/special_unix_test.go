//go:build unix

package datasets

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// within fails the test if f has not returned after a few seconds (it
// would block forever on a named pipe).
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still blocked after 5 s", what)
		return nil
	}
}

// TestSpecialFilesInFolder: a named pipe called f.png in an image folder
// (issue 29: blocked forever), a link to /dev/zero called z.png (2.2 GB
// read) and a named pipe given as IDX file are each a one-line error
// naming the file, at once.
func TestSpecialFilesInFolder(t *testing.T) {
	dir := t.TempDir()
	writeImage(t, filepath.Join(dir, "c", "a.png"), patterned(4, 3, 0))
	fifo := filepath.Join(dir, "c", "f.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	err := within(t, "LoadFolder", func() error { _, err := LoadFolder(dir, Options{}); return err })
	oneLine(t, err, fifo, "a named pipe, not a regular file")
	err = within(t, "OpenImage", func() error { _, err := OpenImage(fifo); return err })
	oneLine(t, err, fifo, "a named pipe, not a regular file")

	zero := filepath.Join(t.TempDir(), "z.png")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	_, err = OpenImage(zero)
	oneLine(t, err, zero, "a device, not a regular file")

	idx := filepath.Join(t.TempDir(), "train-images-idx3-ubyte")
	if err := syscall.Mkfifo(idx, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(filepath.Dir(idx), "train-labels-idx1-ubyte"), nil)
	err = within(t, "Load IDX", func() error { _, err := Load(idx, Options{}); return err })
	oneLine(t, err, idx, "a named pipe, not a regular file")
}

// TestFolderIsPipe: a named pipe given as an image folder is refused as a
// file is, at once.
func TestFolderIsPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "set")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	err := within(t, "LoadFolder", func() error { _, err := LoadFolder(fifo, Options{}); return err })
	oneLine(t, err, fifo, "not a directory")
}
