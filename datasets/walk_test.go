package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// oneLine fails unless err is a one-line error naming path and saying want.
func oneLine(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %q", path, want)
		return
	}
	if s := err.Error(); !strings.Contains(s, path) || !strings.Contains(s, want) || strings.Contains(s, "\n") {
		t.Errorf("%s: %q, want one line naming it and saying %q", path, s, want)
	}
}

// TestSymlinkedClassFolder: a class folder that is a symbolic link is
// walked like a real one (issue 29: it was listed as a class but its
// images were not found), by LoadFolder and ImageFiles alike, and so is a
// linked folder inside a class.
func TestSymlinkedClassFolder(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	writeImage(t, filepath.Join(elsewhere, "cats", "a.png"), patterned(4, 3, 0))
	writeImage(t, filepath.Join(elsewhere, "more", "b.png"), patterned(4, 3, 1))
	writeImage(t, filepath.Join(dir, "set", "dogs", "c.png"), patterned(4, 3, 2))
	if err := os.Symlink(filepath.Join(elsewhere, "cats"), filepath.Join(dir, "set", "cats")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "more"), filepath.Join(dir, "set", "dogs", "more")); err != nil {
		t.Fatal(err)
	}
	s, err := LoadFolder(filepath.Join(dir, "set"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 || strings.Join(s.Classes(), ",") != "cats,dogs" || s.Label(0) != 0 || s.Label(1) != 1 || s.Label(2) != 1 {
		t.Fatalf("%d samples, classes %v; want 3 in cats,dogs", s.Len(), s.Classes())
	}
	files, err := ImageFiles([]string{filepath.Join(dir, "set", "cats"), filepath.Join(dir, "set", "dogs")})
	want := []string{
		filepath.Join(dir, "set", "cats", "a.png"),
		filepath.Join(dir, "set", "dogs", "c.png"),
		filepath.Join(dir, "set", "dogs", "more", "b.png"),
	}
	if err != nil || !slices.Equal(files, want) {
		t.Errorf("ImageFiles: %v, %v; want %v", files, err, want)
	}
}

// TestSymlinkLoop: a link back to a folder above it is a one-line error
// naming the link, not an endless walk; so is a class folder linking to
// the data set itself.
func TestSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	writeImage(t, filepath.Join(dir, "cats", "a.png"), patterned(4, 3, 0))
	loop := filepath.Join(dir, "cats", "again")
	if err := os.Symlink("..", loop); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	_, err := LoadFolder(dir, Options{})
	oneLine(t, err, loop, "symbolic link loop")
	_, err = ImageFiles([]string{dir})
	oneLine(t, err, loop, "symbolic link loop")

	dir2 := t.TempDir()
	writeImage(t, filepath.Join(dir2, "cats", "a.png"), patterned(4, 3, 0))
	self := filepath.Join(dir2, "self")
	if err := os.Symlink(".", self); err != nil {
		t.Fatal(err)
	}
	_, err = LoadFolder(dir2, Options{})
	oneLine(t, err, self, "symbolic link loop")
}

// TestFolderEntryLimit: listing stops at a limit on the names read, with
// a one-line error naming the folder given; links that fan out (each
// folder linking four times to the next, 4^10 paths) reach it quickly.
func TestFolderEntryLimit(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		writeFile(t, filepath.Join(dir, "c", string(rune('a'+i))+".png"), nil)
	}
	if _, _, _, err := listImagesMax(dir, 6); err != nil {
		t.Errorf("6 names within a limit of 6: %v", err)
	}
	_, _, _, err := listImagesMax(dir, 5)
	oneLine(t, err, dir, "MaxFolderEntries")
	_, err = imageFiles([]string{dir}, 5)
	oneLine(t, err, dir, "MaxFolderEntries")

	fan := t.TempDir()
	for d := range 10 {
		level := filepath.Join(fan, "d"+string(rune('0'+d)))
		writeFile(t, filepath.Join(level, "x.png"), nil)
		for k := range 4 {
			if err := os.Symlink(filepath.Join(fan, "d"+string(rune('0'+d+1))), filepath.Join(level, "l"+string(rune('0'+k)))); err != nil {
				t.Skip("no symbolic links here:", err)
			}
		}
	}
	start := time.Now()
	_, err = imageFiles([]string{filepath.Join(fan, "d0")}, 10000)
	oneLine(t, err, filepath.Join(fan, "d0"), "MaxFolderEntries")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refused after %v", d)
	}
}
