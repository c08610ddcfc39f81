package datasets

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fuzzNames are the names FuzzFolder gives files, folders and links:
// images, other files, hidden names and train/test splits.
var fuzzNames = []string{"a", "b.png", ".h", "c.JPG", "d.txt", "train", "e.gif", ".f.png"}

// FuzzFolder lays out a tree from fuzzed bytes, two per step: folders,
// files, links to folders (loops included) and broken links, under any
// folder made so far. Listing it as LoadFolder and ImageFiles do must end
// (within a small limit on names), give the same answer twice and, when it
// succeeds, list only image names below the root reached through no
// hidden name, with labels indexing sorted, distinct classes.
func FuzzFolder(f *testing.F) {
	f.Add([]byte{0x00, 0, 0x09, 1})             // a/b.png
	f.Add([]byte{0x00, 0, 0x02, 0x11, 0x09, 1}) // a, a/b.png and a link back to a
	f.Add([]byte{0x00, 0, 0x12, 0, 0x0b, 0})    // a, b.png -> a, broken link
	f.Fuzz(func(t *testing.T, prog []byte) {
		prog = prog[:min(len(prog), 48)]
		root := t.TempDir()
		dirs := []string{root}
		for i := 0; i+1 < len(prog); i += 2 {
			op, arg := prog[i], int(prog[i+1])
			p := filepath.Join(dirs[arg%len(dirs)], fuzzNames[int(op>>3)%len(fuzzNames)])
			switch op % 4 {
			case 0:
				if os.Mkdir(p, 0o755) == nil {
					dirs = append(dirs, p)
				}
			case 1:
				os.WriteFile(p, nil, 0o644)
			case 2:
				os.Symlink(dirs[(arg>>4)%len(dirs)], p)
			case 3:
				os.Symlink(filepath.Join(root, "absent"), p)
			}
		}
		const max = 200
		list := func() ([]string, []int, []string, string) {
			files, labels, classes, err := listImagesMax(root, max)
			return files, labels, classes, errString(t, err)
		}
		files, labels, classes, err := list()
		if f2, l2, c2, e2 := list(); !reflect.DeepEqual([]any{files, labels, classes, err}, []any{f2, l2, c2, e2}) {
			t.Fatalf("two listings differ: %v %v %v %q, then %v %v %v %q", files, labels, classes, err, f2, l2, c2, e2)
		}
		if err == "" {
			checkListed(t, root, files)
			if len(labels) != len(files) || !slices.IsSorted(classes) || len(slices.Compact(slices.Clone(classes))) != len(classes) {
				t.Fatalf("files %v, labels %v, classes %v", files, labels, classes)
			}
			for _, l := range labels {
				if l < 0 || l >= len(classes) {
					t.Fatalf("label %d of %d classes", l, len(classes))
				}
			}
		}
		all, e := imageFiles([]string{root}, max)
		if errString(t, e) == "" {
			checkListed(t, root, all)
		}
	})
}

// errString returns err's text ("" for nil), which must be one line.
func errString(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	if s := err.Error(); strings.Contains(s, "\n") || !strings.HasPrefix(s, "datasets: ") {
		t.Fatalf("error %q: want one line starting datasets:", s)
	}
	return err.Error()
}

// checkListed fails unless every file is an image name below root reached
// through no hidden name.
func checkListed(t *testing.T, root string, files []string) {
	t.Helper()
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			t.Fatalf("listed %s, not below %s", f, root)
		}
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			if hidden(part) {
				t.Fatalf("listed %s, through a hidden name", f)
			}
		}
		if !isImage(f) {
			t.Fatalf("listed %s, not an image name", f)
		}
	}
}
