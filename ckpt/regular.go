package ckpt

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// readFile reads the regular file path whole, as os.ReadFile does, but
// refuses a named pipe or a device before reading from it (os.ReadFile
// would wait for a writer, or read /dev/zero until memory runs out) and
// reads no more than the file's size when opened. Errors name the file.
func readFile(path string) ([]byte, error) {
	f, fi, err := openRegular(path)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, err
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer f.Close()
	buf := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return buf, nil
}

// openRegular opens path for reading if it names a regular file (after
// symbolic links are followed). Anything else is refused before a byte is
// read: a named pipe would block the open and every read until a writer
// comes, and a device such as /dev/zero never ends. The file is opened
// non-blocking where the system allows it, so that a pipe put in place
// between the Stat and the open still cannot block; the open file is
// checked again.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	// A failed Stat is left to the open, whose error says "open".
	if fi, err := os.Stat(path); err == nil {
		if err := regular(fi.Mode()); err != nil {
			return nil, nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = regular(fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// regular returns nil for a regular file's mode and an error naming the
// kind of file otherwise.
func regular(m fs.FileMode) error {
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
