// Package regfile opens and reads files that come from elsewhere only if
// they are regular files: a named pipe would block the open and every
// read until a writer comes, and a device such as /dev/zero never ends.
// imageio, datasets, ckpt, deploy, eval and experiment read their input
// files through it.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// OpenFlags are the flags Open opens with: read-only, and non-blocking
// where the system has it, so that a named pipe put in place after a Stat
// still cannot block. Folders are opened with them too.
const OpenFlags = os.O_RDONLY | oNonblock

// Open opens path for reading if it names a regular file (after symbolic
// links are followed). Anything else is refused before a byte is read; the
// open file is checked again. Errors are *fs.PathErrors naming path: a
// path that does not exist gives the open's own error.
func Open(path string) (*os.File, fs.FileInfo, error) {
	// A failed Stat is left to the open, whose error says "open".
	if fi, err := os.Stat(path); err == nil {
		if err := Check(fi.Mode()); err != nil {
			return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
	f, err := os.OpenFile(path, OpenFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = Check(fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, fi, nil
}

// Check returns nil for a regular file's mode and an error naming the
// kind of file otherwise.
func Check(m fs.FileMode) error {
	var kind string
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	default:
		kind = "a special file"
	}
	return errors.New(kind + ", not a regular file")
}

// ReadFile reads the regular file path whole, as os.ReadFile does, but
// refuses a named pipe or a device before reading from it, reads no more
// than the file's size when opened, and refuses a file larger than max
// bytes (max <= 0: no limit but the size) before allocating. Errors name
// the file.
func ReadFile(path string, max int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max > 0 && fi.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%d bytes; at most %d", fi.Size(), max)}
	}
	buf := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return buf, nil
}
