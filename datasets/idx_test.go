package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idxBytes encodes an IDX file by the format's definition: magic, one
// big-endian uint32 per dimension, the data.
func idxBytes(magic uint32, dims []int, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	return b.Bytes()
}

func gzipBytes(p []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func writeFile(t *testing.T, path string, p []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, p, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixture is a small IDX data set: n images of h×w whose pixel j of image
// i is (7i + j) mod 256, and label i mod 3.
type fixture struct{ n, h, w int }

func (f fixture) pixels() []byte {
	p := make([]byte, f.n*f.h*f.w)
	for i := range f.n {
		for j := range f.h * f.w {
			p[i*f.h*f.w+j] = byte(7*i + j)
		}
	}
	return p
}

func (f fixture) labels() []byte {
	l := make([]byte, f.n)
	for i := range l {
		l[i] = byte(i % 3)
	}
	return l
}

func (f fixture) images() []byte {
	return idxBytes(idxImagesMagic, []int{f.n, f.h, f.w}, f.pixels())
}

func (f fixture) labelFile() []byte {
	return idxBytes(idxLabelsMagic, []int{f.n}, f.labels())
}

// writeSplit writes the images and labels files of a split under the
// standard names, gzipped (with a .gz name) or not.
func (f fixture) writeSplit(t *testing.T, dir, prefix string, gz bool) (images, labels string) {
	img, lab, ext := f.images(), f.labelFile(), ""
	if gz {
		img, lab, ext = gzipBytes(img), gzipBytes(lab), ".gz"
	}
	return writeFile(t, filepath.Join(dir, prefix+"-images-idx3-ubyte"+ext), img),
		writeFile(t, filepath.Join(dir, prefix+"-labels-idx1-ubyte"+ext), lab)
}

func checkFixture(t *testing.T, s *Set, f fixture) {
	t.Helper()
	if s.Len() != f.n || s.Shape() != (Shape{1, f.h, f.w}) || s.NumClasses() != 3 {
		t.Fatalf("got %d samples of %v, %d classes; want %d of 1x%dx%d, 3", s.Len(), s.Shape(), s.NumClasses(), f.n, f.h, f.w)
	}
	pix, lab := f.pixels(), f.labels()
	for i := range f.n {
		if !bytes.Equal(s.Pixels(i), pix[i*f.h*f.w:(i+1)*f.h*f.w]) {
			t.Fatalf("sample %d: pixels %v, want %v", i, s.Pixels(i), pix[i*f.h*f.w:(i+1)*f.h*f.w])
		}
		if s.Label(i) != int(lab[i]) {
			t.Fatalf("sample %d: label %d, want %d", i, s.Label(i), lab[i])
		}
	}
}

func TestLoadIDX(t *testing.T) {
	f := fixture{n: 5, h: 3, w: 4}
	for _, tc := range []struct {
		name       string
		img, lab   []byte
		imgN, labN string
	}{
		{"plain", f.images(), f.labelFile(), "a-images-idx3-ubyte", "a-labels-idx1-ubyte"},
		{"gzip", gzipBytes(f.images()), gzipBytes(f.labelFile()), "a-images-idx3-ubyte.gz", "a-labels-idx1-ubyte.gz"},
		// gzip is told by content, not by name.
		{"gzip without .gz", gzipBytes(f.images()), gzipBytes(f.labelFile()), "x", "y"},
		{"plain named .gz", f.images(), f.labelFile(), "x.gz", "y.gz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := LoadIDX(writeFile(t, filepath.Join(dir, tc.imgN), tc.img), writeFile(t, filepath.Join(dir, tc.labN), tc.lab))
			if err != nil {
				t.Fatal(err)
			}
			checkFixture(t, s, f)
		})
	}
}

func TestLoadIDXErrors(t *testing.T) {
	f := fixture{n: 4, h: 2, w: 3}
	img, lab := f.images(), f.labelFile()
	var imgExtra []byte
	imgExtra = append(imgExtra, img...)
	imgExtra = append(imgExtra, 0)
	corrupt := gzipBytes(img)
	corrupt[len(corrupt)-6] ^= 0xff // in the CRC-32 of the gzip trailer
	for _, tc := range []struct {
		name     string
		img, lab []byte
		bad      string // which file the error must name: "images" or "labels"
		msg      string
	}{
		{"truncated images", img[:len(img)-1], lab, "images", "truncated: IDX header announces dimensions [4 2 3], 40 bytes with the header; file has 39"},
		{"truncated gzip images", gzipBytes(img[:len(img)-5]), lab, "images", "truncated: IDX header announces dimensions [4 2 3], 40 bytes with the header; decompressed data has 35"},
		{"truncated gzip stream", gzipBytes(img)[:20], lab, "images", "truncated"},
		{"truncated header", img[:10], lab, "images", "truncated: file ends inside the IDX header"},
		{"empty", nil, lab, "images", "truncated: file ends inside the IDX header"},
		{"trailing data", imgExtra, lab, "images", "41"},
		{"trailing gzip data", gzipBytes(imgExtra), lab, "images", "data continues past the 40 bytes"},
		{"bad gzip checksum", corrupt, lab, "images", "checksum"},
		{"labels as images", lab, lab, "images", "magic number 0x00000801 (IDX labels), want 0x00000803 (IDX images)"},
		{"images as labels", img, img, "labels", "magic number 0x00000803 (IDX images), want 0x00000801 (IDX labels)"},
		{"wrong magic", append([]byte{0, 0, 0x0d, 3}, img[4:]...), lab, "images", "magic number 0x00000d03, want 0x00000803 (IDX images)"},
		{"huge header", idxBytes(idxImagesMagic, []int{1 << 30, 1 << 12, 1 << 12}, nil), lab, "images", "more than"},
		{"gzip smaller than its header says", gzipBytes(idxBytes(idxImagesMagic, []int{1000000, 28, 28}, nil)), lab, "images", "holds at most"},
		{"count mismatch", img, fixture{n: 3, h: 2, w: 3}.labelFile(), "labels", "3 labels for the 4 images of"},
		{"truncated labels", img, lab[:len(lab)-1], "labels", "truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			paths := map[string]string{
				"images": writeFile(t, filepath.Join(dir, "images"), tc.img),
				"labels": writeFile(t, filepath.Join(dir, "labels"), tc.lab),
			}
			_, err := LoadIDX(paths["images"], paths["labels"])
			if err == nil {
				t.Fatal("no error")
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != paths[tc.bad] {
				t.Errorf("error %q: want a *FileError for %s", err, paths[tc.bad])
			}
			if want := "datasets: " + paths[tc.bad] + ": "; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q, want %q...%q", err, want, tc.msg)
			}
		})
	}
}

func TestLoadIDXLabelRange(t *testing.T) {
	dir := t.TempDir()
	f := fixture{n: 4, h: 2, w: 2}
	images, labels := f.writeSplit(t, dir, "train", false)
	_, err := loadIDX(images, labels, "x", []string{"a", "b"}) // labels go up to 2
	if err == nil || !strings.Contains(err.Error(), "label 2 of sample 2 out of range [0, 2)") {
		t.Errorf("error %v, want label 2 of sample 2 out of range", err)
	}
	var fe FormatError
	if !errors.As(err, &fe) {
		t.Errorf("error %v does not wrap a FormatError", err)
	}
}

func TestLoadIDXSpecs(t *testing.T) {
	train := fixture{n: 6, h: 2, w: 3}
	test := fixture{n: 3, h: 2, w: 3}
	for _, gz := range []bool{false, true} {
		dir := t.TempDir()
		trainImages, _ := train.writeSplit(t, dir, "train", gz)
		testImages, _ := test.writeSplit(t, dir, "t10k", gz)
		for _, tc := range []struct {
			spec string
			opt  Options
			want fixture
		}{
			{dir, Options{}, train},
			{dir, Options{Split: Test}, test},
			{trainImages, Options{}, train},
			{testImages, Options{}, test},
		} {
			s, err := Load(tc.spec, tc.opt)
			if err != nil {
				t.Fatalf("Load(%s, %v): %v", tc.spec, tc.opt.Split, err)
			}
			checkFixture(t, s, tc.want)
		}
	}

	// The '.' spelling, and a labels file gzipped when the images are not.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "train-images.idx3-ubyte"), train.images())
	writeFile(t, filepath.Join(dir, "train-labels.idx1-ubyte.gz"), gzipBytes(train.labelFile()))
	for _, spec := range []string{dir, filepath.Join(dir, "train-images.idx3-ubyte")} {
		s, err := Load(spec, Options{})
		if err != nil {
			t.Fatalf("Load(%s): %v", spec, err)
		}
		checkFixture(t, s, train)
	}
	// A missing split names the files looked for.
	_, err := Load(dir, Options{Split: Test})
	if err == nil || !strings.Contains(err.Error(), "no test images file (want one of t10k-images-idx3-ubyte,") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(test split of train-only dir): %v", err)
	}
}

func TestLabelsBeside(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "train-labels-idx1-ubyte.gz"), nil)
	writeFile(t, filepath.Join(dir, "t10k-labels-idx1-ubyte"), nil)
	writeFile(t, filepath.Join(dir, "t10k-labels-idx1-ubyte.gz"), nil)
	for _, tc := range []struct{ images, want string }{
		{"train-images-idx3-ubyte", "train-labels-idx1-ubyte.gz"},
		{"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"},
		{"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"},       // same compression first
		{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}, // same compression first
		{"other-images-idx3-ubyte", ""},
		{"pictures.bin", ""},
	} {
		got, err := labelsBeside(filepath.Join(dir, tc.images))
		if tc.want == "" {
			if err == nil {
				t.Errorf("labelsBeside(%s) = %s, want an error", tc.images, got)
			}
			continue
		}
		if err != nil || got != filepath.Join(dir, tc.want) {
			t.Errorf("labelsBeside(%s) = %s, %v; want %s", tc.images, got, err, tc.want)
		}
	}
}

func TestLoadNotFound(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nothing"), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "datasets: data set ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing path): %v", err)
	}
	for _, opt := range []Options{{Height: 3}, {Width: -1, Height: -1}, {Channels: 2}, {Split: 7}} {
		if _, err := Load("mnist", opt); err == nil {
			t.Errorf("Load(mnist, %+v): no error", opt)
		}
	}
}
