package featnet

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/policy"
)

// ClassifyFiles brings colour images of another size to 1×28×28 gray,
// counts them, and classifies them as Classify classifies the loaded set.
func TestClassifyFiles(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, size := range []int{28, 40} {
		img := image.NewRGBA(image.Rect(0, 0, size, size))
		for p := range img.Pix {
			img.Pix[p] = uint8(p*(i+3) + 255*(p%4/3))
		}
		files = append(files, filepath.Join(dir, string(rune('a'+i))+".png"))
		f, err := os.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		png.Encode(f, img)
		f.Close()
	}
	net, err := NewLeNet(10, &policy.Policy{Name: "fp32"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ps, conv, err := net.ClassifyFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	ds, _, _ := datasets.LoadFiles(files, datasets.Options{Height: 28, Width: 28, Channels: 1})
	want, _ := net.Classify(ds)
	if conv != 2 || len(ps) != 2 || ps[0] != want[0] || ps[1] != want[1] {
		t.Errorf("ClassifyFiles = %v, %d converted; want %v, 2", ps, conv, want)
	}
}
