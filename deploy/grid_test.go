package deploy_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/gan"
)

// GenerateGrid runs the generator on gan.GridNoise's draw; WriteGoldenHex
// writes WriteHex's files for gan.FixedNoise's first vector.
func TestGenerateGridGoldenHex(t *testing.T) {
	m, err := deploy.Export(trained(t, cgan, ""), mustPolicy(t, "posit6-deploy-quire"))
	if err != nil {
		t.Fatal(err)
	}
	imgs, rows, cols, err := m.GenerateGrid(6, 5, -1)
	if err != nil {
		t.Fatal(err)
	}
	z, labels, wantRows, wantCols := gan.GridNoise(m.Spec(), 6, 5, -1)
	want, err := m.Generate(z, labels)
	if err != nil || rows != wantRows || cols != wantCols || !slices.Equal(imgs, want) {
		t.Errorf("GenerateGrid: %dx%d grid, %v; want %dx%d and Generate's images", rows, cols, err, wantRows, wantCols)
	}

	got, ref := t.TempDir(), t.TempDir()
	if err := m.WriteGoldenHex(got, 7, 1); err != nil {
		t.Fatal(err)
	}
	fz, _ := gan.FixedNoise(m.Spec(), 7, 1, 1)
	if err := m.WriteHex(ref, fz, 1); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(ref, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, _ := filepath.Rel(ref, path)
		a, err1 := os.ReadFile(filepath.Join(got, rel))
		b, err2 := os.ReadFile(path)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: WriteGoldenHex's file differs from WriteHex's (%v, %v)", rel, err1, err2)
		}
		return nil
	})
	if err != nil || n < 2 {
		t.Errorf("WriteHex wrote %d files, %v", n, err)
	}
}
