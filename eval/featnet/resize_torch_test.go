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

// torchInput is pytorch-fid's preprocessing of 8-bit images: ToTensor
// (uint8 → float32 / 255), F.interpolate to 299×299 (bilinear,
// align_corners=False), 2x - 1. It reads "C H W" and the bytes of each
// case from argv[1] and writes the float32 results to argv[2].
const torchInput = `
import sys, numpy as np, torch
import torch.nn.functional as F
data = open(sys.argv[1], "rb").read()
out = open(sys.argv[2], "wb")
i = 0
while i < len(data):
    c, h, w = np.frombuffer(data[i:i+12], dtype="<i4"); i += 12
    n = int(c * h * w)
    x = torch.from_numpy(np.frombuffer(data[i:i+n], dtype=np.uint8).reshape(1, c, h, w).copy()); i += n
    x = x.to(torch.float32).div(255)
    if c == 1:
        x = x.repeat(1, 3, 1, 1)
    y = F.interpolate(x, size=(299, 299), mode="bilinear", align_corners=False)
    out.write((2 * y - 1).numpy().astype("<f4").tobytes())
`

// TestResizeTorch checks networkInput, and so Resize, bit for bit against
// PyTorch on images that are enlarged, shrunk, kept, and gray; it skips
// when python3-torch is missing (CI installs it).
func TestResizeTorch(t *testing.T) {
	py := pyref.Python("torch")
	if py == "" {
		t.Skip("python3 with torch not available")
	}
	cases := []datasets.Shape{
		{C: 3, H: 37, W: 53}, {C: 3, H: 500, W: 400}, {C: 3, H: 299, W: 299},
		{C: 3, H: 1, W: 1}, {C: 3, H: 300, W: 298}, {C: 1, H: 64, W: 64}, {C: 3, H: 128, W: 128},
	}
	dir := t.TempDir()
	var in []byte
	pix := make([][]uint8, len(cases))
	for k, s := range cases {
		in = binary.LittleEndian.AppendUint32(in, uint32(s.C))
		in = binary.LittleEndian.AppendUint32(in, uint32(s.H))
		in = binary.LittleEndian.AppendUint32(in, uint32(s.W))
		pix[k] = make([]uint8, s.Size())
		for i := range pix[k] {
			pix[k][i] = uint8((i*7919 + k*31 + (i/s.W)*(i%s.W)) % 256)
		}
		in = append(in, pix[k]...)
	}
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-c", torchInput, inPath, outPath).CombinedOutput(); err != nil {
		t.Fatalf("torch: %v\n%s", err, out)
	}
	want, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3 * 299 * 299
	if len(want) != 4*n*len(cases) {
		t.Fatalf("torch wrote %d bytes", len(want))
	}
	for k, s := range cases {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			img := make([]float32, s.Size())
			for i, p := range pix[k] {
				img[i] = float32(float64(2*int(p)-255) / 255) // as datasets stores pixels
			}
			x := make([]float32, n)
			networkInput(x, make([]float32, s.H*s.W), img, s, 299)
			bad, first := 0, -1
			for i, v := range x {
				w := math.Float32frombits(binary.LittleEndian.Uint32(want[4*(k*n+i):]))
				if v != w {
					if first < 0 {
						first = i
						t.Errorf("[%d] = %v, torch %v", i, v, w)
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d values differ from torch", bad, n)
			}
		})
	}
}
