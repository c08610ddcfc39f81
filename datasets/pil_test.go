package datasets

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/internal/pyref"
)

// pilCopies writes JPEGs of every subsampling (baseline and progressive)
// into dir/jpeg with PIL, and PIL's decoding of each as a PNG into
// dir/png: the "PNG copies of a JPEG folder" of issue 16.
const pilCopies = `
import os, sys, random
from PIL import Image
d = sys.argv[1]
os.makedirs(os.path.join(d, "jpeg")); os.makedirs(os.path.join(d, "png"))
rnd = random.Random(1)
k = 0
for sub in (0, 1, 2):
    for prog in (False, True):
        im = Image.new("RGB", (45, 31))
        im.putdata([(rnd.randrange(256), (x * 5) % 256, (y * 7) % 256) for y in range(31) for x in range(45)])
        p = os.path.join(d, "jpeg", f"{k}.jpg")
        im.save(p, quality=80, subsampling=sub, progressive=prog)
        Image.open(p).convert("RGB").save(os.path.join(d, "png", f"{k}.png"))
        k += 1
`

// TestJPEGFolderEqualsPILPNGCopies loads a folder of JPEGs and the folder
// of PIL-decoded PNG copies of them and wants the same pixels, so that
// every feature, statistic and FID of the two is the same. Skipped
// without python3 and PIL.
func TestJPEGFolderEqualsPILPNGCopies(t *testing.T) {
	py := pyref.Python("PIL")
	if py == "" {
		t.Skip("python3 with PIL not available")
	}
	dir := t.TempDir()
	if out, err := exec.Command(py, "-c", pilCopies, dir).CombinedOutput(); err != nil {
		t.Fatalf("PIL: %v\n%s", err, out)
	}
	j, err := LoadFolder(filepath.Join(dir, "jpeg"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadFolder(filepath.Join(dir, "png"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if j.Len() != 6 || p.Len() != 6 || j.Shape() != p.Shape() {
		t.Fatalf("%d images of %v and %d of %v", j.Len(), j.Shape(), p.Len(), p.Shape())
	}
	for i := range j.Len() {
		if !bytes.Equal(j.Pixels(i), p.Pixels(i)) {
			t.Errorf("image %d: the JPEG's pixels differ from its PIL PNG copy's", i)
		}
	}
}
