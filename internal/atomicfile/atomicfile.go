// Package atomicfile writes files so that readers never see a half-written
// one: data goes to a temporary file in the same directory, which is synced
// and then renamed over the destination. A temporary file's name records
// the writer's process id (.<name>.tmp-<pid>-<random>), so that
// RemoveTemps can remove what a killed writer left without touching the
// files of a live one.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Write creates or replaces the file at path with what write writes. If
// write or any file operation fails, the destination is left as it was and
// the temporary file is removed.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// Renaming onto a folder fails only at the end, after the work; and
	// the error would name the temporary file, which the user never saw.
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return &os.PathError{Op: "atomicfile: write", Path: path, Err: errIsDir}
	}
	tmp, err := os.CreateTemp(dir, "."+base+tmpInfix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return targetError(path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return targetError(path, err)
	}
	if err = tmp.Sync(); err != nil {
		return targetError(path, err)
	}
	if err = tmp.Close(); err != nil {
		return targetError(path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return targetError(path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return targetError(path, err)
	}
	return nil
}

var errIsDir = errors.New("is a folder")

// targetError returns err, an error of an operation on the temporary file
// for path, as an error naming path: the temporary file is gone by the
// time the user reads it.
func targetError(path string, err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &os.PathError{Op: "atomicfile: write", Path: path, Err: err}
}

// WriteFile is Write for a byte slice.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// MkdirWritable makes dir (and its parents) and checks that a file can be
// created in it, so that a long job fails before it starts, not when it
// first writes.
func MkdirWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	probe, err := os.CreateTemp(dir, probePrefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("output folder %s is not writable: %w", dir, errors.Unwrap(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// tmpInfix precedes the writer's pid in a temporary file's name.
const tmpInfix = ".tmp-"

// probePrefix starts the names of MkdirWritable's probe files.
const probePrefix = ".positgan-probe-"

// RemoveTemps removes the temporary files in dir (not below) that writers
// no longer running left behind: a process killed during Write (kill -9,
// power loss) leaves its temporary file, which nothing else removes. Files
// of live writers, this process included, are kept; so are temporary
// files of writers whose pid is now another process's. Temporary files of
// earlier versions, which record no pid, are removed. It returns the names
// of the files removed.
func RemoveTemps(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("atomicfile: %w", err)
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, ".") {
			continue
		}
		var rest string
		if i := strings.LastIndex(name, tmpInfix); i > 0 {
			rest = name[i+len(tmpInfix):]
		} else if strings.HasPrefix(name, probePrefix) {
			rest = name[len(probePrefix):]
		} else {
			continue
		}
		if pid, _, tagged := strings.Cut(rest, "-"); tagged {
			p, err := strconv.Atoi(pid)
			if err != nil || p <= 0 || p == os.Getpid() || alive(p) {
				continue
			}
		} else if _, err := strconv.ParseUint(rest, 10, 64); err != nil {
			continue // not a name os.CreateTemp made
		}
		path := filepath.Join(dir, name)
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, fmt.Errorf("atomicfile: %w", err)
		}
		removed = append(removed, path)
	}
	return removed, nil
}
