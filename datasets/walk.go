package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/positgan/positgan/internal/regfile"
)

// MaxFolderEntries bounds the names a listing of image folders looks at
// (LoadFolder, ImageFiles): files and folders, images or not, at any
// depth, 4,194,304 in all (ImageNet's training set holds 1.3 million
// images in 1000 folders). Symbolic links to folders are followed, so
// without a bound a few links could make a small tree list without end.
const MaxFolderEntries = 1 << 22

// A lister lists image files below folders, counting the names it reads
// against a limit.
type lister struct {
	root    string // what errors about the limit name: the folder the user gave
	max     int    // the limit on names read (MaxFolderEntries)
	entries int    // names read so far
}

func newLister(root string, max int) *lister { return &lister{root: root, max: max} }

// readDir returns the entries of the folder dir sorted by name, as
// os.ReadDir does, counting them against the limit as they are read.
func (l *lister) readDir(dir string) ([]fs.DirEntry, error) {
	f, err := os.OpenFile(dir, regfile.OpenFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// What is not a folder (a named pipe, say) is refused as os.ReadDir
	// refuses it.
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: errors.New("not a directory")}
	}
	var all []fs.DirEntry
	for {
		batch, err := f.ReadDir(1024)
		all = append(all, batch...)
		l.entries += len(batch)
		if l.entries > l.max {
			return nil, &FileError{Path: l.root, Err: fmt.Errorf(
				"more than %d files and folders below it (datasets.MaxFolderEntries); symbolic links to folders count each time they are followed", l.max)}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(all, func(a, b fs.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
	return all, nil
}

// walk calls add for each image file at any depth below the folder root,
// in the order filepath.WalkDir visits them (sorted by name, a folder's
// contents where its name sorts), and returns how many. Names starting
// with '.' are skipped, as are files whose extension names no image
// format. Symbolic links to folders, root included, are followed like
// folders, as torchvision's ImageFolder follows them; a link back to a
// folder above it (a loop) is an error naming the link. parents are the
// folders above root that a link must not lead back to either.
func (l *lister) walk(root string, parents []string, add func(path string)) (int, error) {
	var stack []dirID
	for _, p := range append(slices.Clip(parents), root) {
		fi, err := os.Stat(p)
		if err != nil {
			return 0, err
		}
		stack = append(stack, dirID{p, fi})
	}
	n := 0
	var visit func(dir string) error
	visit = func(dir string) error {
		entries, err := l.readDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			if hidden(name) {
				continue
			}
			p := filepath.Join(dir, name)
			var fi fs.FileInfo
			switch {
			case e.IsDir():
				if fi, err = e.Info(); err != nil {
					return err
				}
			case e.Type()&fs.ModeSymlink != 0:
				// A link to a folder is walked; any other link is a file
				// (opening it tells what is wrong with it).
				if t, err := os.Stat(p); err == nil && t.IsDir() {
					fi = t
				}
			}
			if fi == nil {
				if isImage(name) {
					add(p)
					n++
				}
				continue
			}
			for _, a := range stack {
				if os.SameFile(a.fi, fi) {
					return &FileError{Path: p, Err: fmt.Errorf("a symbolic link loop: leads back to %s, a folder above it", a.path)}
				}
			}
			stack = append(stack, dirID{p, fi})
			err := visit(p)
			stack = stack[:len(stack)-1]
			if err != nil {
				return err
			}
		}
		return nil
	}
	if !stack[len(stack)-1].fi.IsDir() {
		return 0, &FileError{Path: root, Err: errors.New("not a folder")}
	}
	err := visit(root)
	return n, err
}

// dirID is a folder on the way down a walk, for telling loops.
type dirID struct {
	path string
	fi   fs.FileInfo
}
