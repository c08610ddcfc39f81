package imageio

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/internal/pyref"
)

// pilCases runs testdata/pil_cases.py into a temporary folder: JPEG files
// of every subsampling, baseline and progressive, made by PIL and cjpeg,
// and PNG files of every PIL mode, each with PIL's decoding beside it. It
// skips the test when python3 with PIL is missing (CI installs
// python3-pil and libjpeg-turbo-progs).
func pilCases(t *testing.T) (dir string, names []string) {
	t.Helper()
	py := pyref.Python("PIL")
	if py == "" {
		t.Skip("python3 with PIL not available")
	}
	dir = t.TempDir()
	writeGoPNGs(t, dir)
	cmd := exec.Command(py, "testdata/pil_cases.py", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pil_cases.py: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, strings.Fields(string(data))
}

// writeGoPNGs writes the PNG kinds PIL cannot write: 16-bit RGB, 16-bit
// RGBA and 16-bit gray+alpha.
func writeGoPNGs(t *testing.T, dir string) {
	t.Helper()
	r := image.Rect(0, 0, 9, 5)
	rgb := image.NewRGBA64(r)
	rgba := image.NewNRGBA64(r)
	for y := range 5 {
		for x := range 9 {
			v := uint16((x*7919 + y*104729) % 65536)
			rgb.SetRGBA64(x, y, color.RGBA64{v, ^v, v / 3, 0xffff})
			rgba.SetNRGBA64(x, y, color.NRGBA64{v, ^v, v / 3, uint16(x * 5000)})
		}
	}
	for name, img := range map[string]image.Image{"go_rgb16.png": rgb, "go_rgba16.png": rgba} {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readRGB reads a .rgb file of pil_cases.py.
func readRGB(path string) (w, h int, pix []byte, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, nil, err
	}
	br := bufio.NewReader(bytes.NewReader(data))
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, 0, nil, err
	}
	if _, err := fmt.Sscan(line, &w, &h); err != nil {
		return 0, 0, nil, err
	}
	pix = data[len(line):]
	if len(pix) != 3*w*h {
		return 0, 0, nil, fmt.Errorf("%s: %d bytes for %dx%d", path, len(pix), w, h)
	}
	return w, h, pix, nil
}

// rgbOf returns img's pixels as RGB bytes, gray repeated, as PIL's
// convert("RGB").
func rgbOf(img image.Image) []byte {
	b := img.Bounds()
	out := make([]byte, 0, 3*b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			switch m := img.(type) {
			case *image.Gray:
				v := m.GrayAt(x, y).Y
				out = append(out, v, v, v)
			case *image.NRGBA:
				c := m.NRGBAAt(x, y)
				out = append(out, c.R, c.G, c.B)
			default:
				panic(fmt.Sprintf("unexpected %T", img))
			}
		}
	}
	return out
}

// TestMatchesPIL decodes every file of pilCases and wants PIL's pixels
// exactly.
func TestMatchesPIL(t *testing.T) {
	dir, names := pilCases(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			w, h, want, err := readRGB(filepath.Join(dir, name+".rgb"))
			if err != nil {
				t.Fatal(err)
			}
			img, err := Open(filepath.Join(dir, name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
				t.Fatalf("size %dx%d, PIL %dx%d", b.Dx(), b.Dy(), w, h)
			}
			got := rgbOf(img)
			diff, maxd, first := 0, 0, -1
			for i := range got {
				if d := int(got[i]) - int(want[i]); d != 0 {
					if first < 0 {
						first = i
					}
					diff++
					maxd = max(maxd, d, -d)
				}
			}
			if diff > 0 {
				p := first / 3
				t.Errorf("%d of %d samples differ from PIL's, by up to %d; first at x=%d y=%d channel %d: %d, PIL %d",
					diff, len(got), maxd, p%w, p/w, first%3, got[first], want[first])
			}
		})
	}
}

// TestStdlibDiffers is the control of TestMatchesPIL: Go's image/jpeg,
// which positgan used before, is measured on the same files, and must
// differ from PIL on the subsampled ones (else the comparison would prove
// nothing). go test -v -run StdlibDiffers prints the figures
// docs/evaluation.md quotes.
func TestStdlibDiffers(t *testing.T) {
	dir, names := pilCases(t)
	type agg struct{ files, differ, samples, diffSamples, maxd int }
	by := map[string]*agg{}
	for _, name := range names {
		if !strings.HasPrefix(name, "pil_") || !strings.HasSuffix(name, ".jpg") || strings.Contains(name, "gray") || strings.Contains(name, "cmyk") {
			continue
		}
		kind := strings.Split(name, "_")[2]
		if strings.Contains(name, "prog") {
			kind += " progressive"
		}
		_, _, want, err := readRGB(filepath.Join(dir, name+".rgb"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		a := by[kind]
		if a == nil {
			a = &agg{}
			by[kind] = a
		}
		a.files++
		got := rgbOf(toPIL(img, false))
		d := 0
		for i := range got {
			if e := int(got[i]) - int(want[i]); e != 0 {
				d++
				a.maxd = max(a.maxd, e, -e)
			}
		}
		a.samples += len(got)
		a.diffSamples += d
		if d > 0 {
			a.differ++
		}
	}
	for _, k := range []string{"444", "422", "420", "444 progressive", "422 progressive", "420 progressive"} {
		a := by[k]
		if a == nil {
			t.Fatalf("no %s files", k)
		}
		t.Logf("Go image/jpeg vs PIL, %s: %d of %d files differ, %.1f%% of samples, by up to %d levels",
			k, a.differ, a.files, 100*float64(a.diffSamples)/float64(a.samples), a.maxd)
		if strings.HasPrefix(k, "42") && a.differ == 0 {
			t.Errorf("%s: Go's image/jpeg agrees with PIL; the PIL comparison may be broken", k)
		}
	}
}

// TestMatchesPILFixtures is TestMatchesPIL on files kept in testdata/pil
// (made by testdata/pil_cases.py with PIL 9.4 / libjpeg-turbo 2.1.5 and
// cjpeg), so that it runs without Python: 4:2:0, 4:2:2 progressive,
// 4:4:4, 4:4:0, restart intervals in interleaved and progressive scans,
// a 5×2 image (chroma replicated, not filtered), progressive CMYK,
// 16-bit gray, paletted and gray+alpha PNG.
func TestMatchesPILFixtures(t *testing.T) {
	rgbs, err := filepath.Glob("testdata/pil/*.rgb")
	if err != nil || len(rgbs) < 10 {
		t.Fatalf("fixtures: %v, %d", err, len(rgbs))
	}
	for _, r := range rgbs {
		name := strings.TrimSuffix(r, ".rgb")
		t.Run(filepath.Base(name), func(t *testing.T) {
			w, h, want, err := readRGB(r)
			if err != nil {
				t.Fatal(err)
			}
			img, err := Open(name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
				t.Fatalf("size %dx%d, PIL %dx%d", b.Dx(), b.Dy(), w, h)
			}
			if got := rgbOf(img); !bytes.Equal(got, want) {
				t.Error("pixels differ from PIL's")
			}
		})
	}
}

// TestExifMatchesPIL wants Options.ExifOrientation to turn images as
// PIL's ImageOps.exif_transpose does, for orientations 2 to 8 (without
// it, TestMatchesPIL wants the stored pixels, as Image.open gives).
func TestExifMatchesPIL(t *testing.T) {
	dir, names := pilCases(t)
	n := 0
	for _, name := range names {
		if !strings.HasPrefix(name, "exif_") {
			continue
		}
		n++
		w, h, want, err := readRGB(filepath.Join(dir, name+".upright.rgb"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := Open(filepath.Join(dir, name), Options{ExifOrientation: true})
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Errorf("%s: size %dx%d, PIL %dx%d", name, b.Dx(), b.Dy(), w, h)
		} else if !bytes.Equal(rgbOf(img), want) {
			t.Errorf("%s: pixels differ from exif_transpose's", name)
		}
	}
	if n != 7 {
		t.Errorf("%d EXIF cases, want 7", n)
	}
}
