package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/positgan/positgan/internal/atomicfile"
)

// wantExt refuses path, given as --flag, unless its extension is ext
// (".png"), in any case; "" is left to the caller.
func wantExt(flag, path, ext string) error {
	if path == "" || hasExt(path, ext) {
		return nil
	}
	return extError(flag, path, ext)
}

// hasExt reports whether path's extension is ext, in any case.
func hasExt(path, ext string) bool { return strings.EqualFold(filepath.Ext(path), ext) }

// extError is the usage error of a file name, given as --flag, without
// the extension ext.
func extError(flag, path, ext string) error {
	return usagef("--%s %s: want a %s file name", flag, path, ext)
}

// checkOutFile checks, before a long job, that the file path (given as
// --flag) can be written when the job ends: not a folder, in a folder
// that is writable, and exists or (with mkdir) can be made.
func checkOutFile(flag, path string, mkdir bool) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("--%s %s: is a folder; want a file name", flag, path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); !mkdir && (err != nil || !fi.IsDir()) {
		return fmt.Errorf("--%s %s: no folder %s", flag, path, filepath.Dir(path))
	}
	if err := atomicfile.MkdirWritable(filepath.Dir(path)); err != nil {
		return fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	return nil
}

// samePath reports whether a and b name the same file or folder: the same
// cleaned absolute path, or (for paths that exist) os.SameFile, which sees
// through links.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == ab {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// An intFlag is an integer flag's name and value, for the checks that
// name the first bad one of several flags.
type intFlag struct {
	name string
	v    int
}

// checkInts returns a usage error naming the first flag whose value is
// below min (0: "must not be negative", 1: "must be positive").
func checkInts(min int, flags ...intFlag) error {
	for _, f := range flags {
		if f.v < min {
			if min == 1 {
				return usagef("--%s %d: must be positive", f.name, f.v)
			}
			return usagef("--%s %d: must not be negative", f.name, f.v)
		}
	}
	return nil
}

// count returns n and the plural noun, made singular for n = 1: "1
// epoch", "2 epochs".
func count(n int, plural string) string {
	if n == 1 {
		plural = strings.TrimSuffix(plural, "s")
	}
	return strconv.Itoa(n) + " " + plural
}
