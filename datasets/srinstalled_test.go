package datasets

import (
	"strings"
	"testing"
)

// Issue 29 item 13: without opencv-doc, training on sr-photos used 5
// photographs of 18 without a word; the note names the package.
func TestSRPhotosMissing(t *testing.T) {
	all := func(string) bool { return true }
	if got := srMissing(all); got != "" {
		t.Errorf("all installed: %q, want none", got)
	}
	noOpenCV := func(p string) bool { return !strings.Contains(p, "/opencv-doc/") }
	want := "sr-photos: 13 of 18 training photographs and 2 of 2 held-out ones are not installed (apt-get install opencv-doc)"
	if got := srMissing(noOpenCV); got != want {
		t.Errorf("without opencv-doc:\n got %q\nwant %q", got, want)
	}
	if got := srMissing(func(string) bool { return false }); !strings.HasSuffix(got, "(apt-get install python3-skimage opencv-doc)") {
		t.Errorf("nothing installed: %q", got)
	}
}
