// Package runlock makes a run folder owned by one process at a time. The
// owner holds an advisory lock (flock) on the folder's lock file, which
// records its process id for the message a second writer gets. The kernel
// drops the lock when the owner exits, however it exits (kill -9
// included), so a lock file left behind is stale and the next Acquire
// takes it over.
package runlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FileName is the lock file in a locked folder.
const FileName = ".positgan.lock"

// A BusyError says the folder is owned by another live process.
type BusyError struct {
	Dir string
	PID int // the owner's process id, 0 if unknown
}

func (e *BusyError) Error() string {
	owner := "another process"
	if e.PID > 0 {
		owner = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("runlock: %s is in use by %s (lock file %s); wait for it to finish or use another folder",
		e.Dir, owner, filepath.Join(e.Dir, FileName))
}

// A Lock is a held lock on a folder.
type Lock struct {
	dir string
	f   *os.File
}

// Acquire locks dir, which must exist, for this process. If another live
// process holds it, the error is a *BusyError naming that process.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, FileName)
	for range 10 { // retried only if the file is replaced under us
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("runlock: %w", err)
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("runlock: %s: %w", path, err)
		}
		if !ok {
			pid := readPID(f)
			f.Close()
			return nil, &BusyError{Dir: dir, PID: pid}
		}
		// A releasing owner removes the file before unlocking: the lock
		// is ours only if the file we locked is still the one at path.
		if fi, err := f.Stat(); err == nil {
			if pi, err := os.Stat(path); err == nil && os.SameFile(fi, pi) {
				if err := writePID(f); err != nil {
					unlock(f)
					f.Close()
					return nil, fmt.Errorf("runlock: %s: %w", path, err)
				}
				return &Lock{dir: dir, f: f}, nil
			}
		}
		unlock(f)
		f.Close()
	}
	return nil, &BusyError{Dir: dir}
}

// Dir returns the locked folder.
func (l *Lock) Dir() string { return l.dir }

// Release removes the lock file and releases the lock. It may be called
// more than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(filepath.Join(l.dir, FileName))
	unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("runlock: %w", err)
	}
	return nil
}

// Owner returns the process id recorded in dir's lock file if a live
// process holds the lock, and 0 otherwise (no lock file, or a stale one).
func Owner(dir string) int {
	f, err := os.Open(filepath.Join(dir, FileName))
	if err != nil {
		return 0
	}
	defer f.Close()
	ok, err := tryLock(f)
	if err != nil {
		return 0
	}
	if ok {
		unlock(f)
		return 0
	}
	return max(readPID(f), 1)
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return err
	}
	return f.Sync()
}

func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// IsBusy reports whether err is a *BusyError.
func IsBusy(err error) bool {
	var b *BusyError
	return errors.As(err, &b)
}
