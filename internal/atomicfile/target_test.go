package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Errors name the file asked for, never the temporary file (issue 29 item
// 11: "rename ./.small.tmp-28550-… small: file exists"), and a folder in
// the way is refused before write runs.
func TestErrorsNameTarget(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "small")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(folder, "x"), nil, 0o644) // a folder not empty: rename fails
	called := false
	err := Write(folder, func(w io.Writer) error { called = true; return nil })
	if err == nil || called || !strings.Contains(err.Error(), folder+": is a folder") {
		t.Errorf("Write onto a folder: %v (write called: %v); want an error naming %s", err, called, folder)
	}
	for _, path := range []string{filepath.Join(dir, "missing", "x"), folder} {
		err := WriteFile(path, nil)
		if err == nil || strings.Contains(err.Error(), tmpInfix) || !strings.Contains(err.Error(), path) {
			t.Errorf("WriteFile(%s): %v; want an error naming the path, not the temporary file", path, err)
		}
	}
}
