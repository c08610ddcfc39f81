package featnet

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/internal/pyref"
)

// pilResize resizes float32 planes with PIL (mode "F", BICUBIC), as
// clean-fid does; it reads "H W OH OW" and the values of each case from
// argv[1] and writes the results to argv[2].
const pilResize = `
import sys, numpy as np
from PIL import Image
data = open(sys.argv[1], "rb").read()
out = open(sys.argv[2], "wb")
i = 0
while i < len(data):
    h, w, oh, ow = np.frombuffer(data[i:i+16], dtype="<i4"); i += 16
    n = int(h * w) * 4
    x = np.frombuffer(data[i:i+n], dtype="<f4").reshape(h, w); i += n
    y = Image.fromarray(x.astype(np.float32), mode="F").resize((int(ow), int(oh)), resample=Image.BICUBIC)
    out.write(np.asarray(y).astype("<f4").tobytes())
`

// TestResizeBicubicPIL checks ResizeBicubicPIL bit for bit against PIL on
// planes that are enlarged, shrunk (antialiased), kept, and resized
// along one axis only; it skips when python3 with PIL and numpy is
// missing.
func TestResizeBicubicPIL(t *testing.T) {
	py := pyref.Python("PIL, numpy")
	if py == "" {
		t.Skip("python3 with PIL and numpy not available")
	}
	cases := [][4]int{{37, 53, 299, 299}, {500, 400, 299, 299}, {299, 299, 299, 299}, {300, 298, 299, 299},
		{64, 64, 299, 299}, {20, 299, 299, 299}, {299, 40, 299, 299}, {1, 1, 5, 3}, {128, 128, 32, 32}}
	dir := t.TempDir()
	var in []byte
	planes := make([][]float32, len(cases))
	for k, c := range cases {
		for _, v := range c {
			in = binary.LittleEndian.AppendUint32(in, uint32(v))
		}
		planes[k] = make([]float32, c[0]*c[1])
		for i := range planes[k] {
			planes[k][i] = float32((i*7919+k*31+(i/c[1])*(i%c[1]))%256) + 0.25
			in = binary.LittleEndian.AppendUint32(in, math.Float32bits(planes[k][i]))
		}
	}
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-c", pilResize, inPath, outPath).CombinedOutput(); err != nil {
		t.Fatalf("PIL: %v\n%s", err, out)
	}
	want, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	off := 0
	for k, c := range cases {
		n := c[2] * c[3]
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			got := make([]float32, n)
			ResizeBicubicPIL(got, planes[k], c[0], c[1], c[2], c[3])
			bad := 0
			for i, v := range got {
				w := math.Float32frombits(binary.LittleEndian.Uint32(want[4*(off+i):]))
				if v != w {
					if bad == 0 {
						t.Errorf("[%d] = %v, PIL %v", i, v, w)
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d values differ from PIL", bad, n)
			}
		})
		off += n
	}
}

// TestCleanInput wants clean-fid's network input for an 8-bit image that
// is already 299×299: (p − 128)/128 for each pixel p, gray repeated.
func TestCleanInput(t *testing.T) {
	for _, c := range []int{1, 3} {
		s := datasets.Shape{C: c, H: 299, W: 299}
		img := make([]float32, s.Size())
		pix := make([]int, s.Size())
		for i := range img {
			pix[i] = (i * 37) % 256
			img[i] = float32(float64(2*pix[i]-255) / 255) // as datasets stores pixels
		}
		x := make([]float32, 3*299*299)
		cleanInput(x, make([]float32, 299*299), img, s, 299)
		for i, v := range x {
			p := pix[i%(299*299)]
			if c == 3 {
				p = pix[i]
			}
			if want := (float32(p) - 128) / 128; v != want {
				t.Fatalf("C=%d [%d] = %v, want %v", c, i, v, want)
			}
		}
	}
}
