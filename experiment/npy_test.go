package experiment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"

	"github.com/positgan/positgan/gan"
)

// WriteNPY writes what numpy (here npyio's reader) reads back: the shape
// and the values, bit for bit, in a header padded to 64 bytes.
func TestWriteNPY(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.npy")
	data := []float32{1, -2.5, float32(math.Inf(1)), 0.1, -0, 7}
	if err := WriteNPY(path, data, []int{1, 3, 2, 1}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if hl := int(binary.LittleEndian.Uint16(b[8:])); (10+hl)%64 != 0 || b[9+hl] != '\n' {
		t.Errorf("header of %d bytes, not padded to 64 with a closing newline", hl)
	}
	r, err := npy.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Header.Descr; d.Type != "<f4" || d.Fortran || !slices.Equal(d.Shape, []int{1, 3, 2, 1}) {
		t.Errorf("header %+v", d)
	}
	var got []float32
	if err := r.Read(&got); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		if math.Float32bits(got[i]) != math.Float32bits(data[i]) {
			t.Errorf("value %d: %v, want %v", i, got[i], data[i])
		}
	}
	if err := WriteNPY(path, data, []int{5}); err == nil {
		t.Error("6 values as shape (5): no error")
	}
}

// npyBytes encodes an array with the header dictionary dict.
func npyBytes(dict string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)+1))
	b.WriteString(dict + "\n")
	b.Write(data)
	return b.Bytes()
}

// ReadNoise takes (N, nz) and (N, Z...) float32 arrays, either byte order,
// and refuses every other array with ErrBadNoise.
func TestReadNoise(t *testing.T) {
	spec := gan.GeneratorSpec{Z: []int{4, 1, 1}}
	dir := t.TempDir()
	z := []float32{0.5, -1, 2, 3, 4, 5, 6, -7.25}
	for _, shape := range [][]int{{2, 4}, {2, 4, 1, 1}} {
		path := filepath.Join(dir, "z.npy")
		if err := WriteNPY(path, z, shape); err != nil {
			t.Fatal(err)
		}
		got, err := ReadNoise(path, spec)
		if err != nil || !slices.Equal(got, z) {
			t.Errorf("shape %v: %v, %v", shape, got, err)
		}
	}
	be := make([]byte, 16)
	for i, v := range z[:4] {
		binary.BigEndian.PutUint32(be[4*i:], math.Float32bits(v))
	}
	path := filepath.Join(dir, "be.npy")
	os.WriteFile(path, npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 4), }", be), 0o644)
	if got, err := ReadNoise(path, spec); err != nil || !slices.Equal(got, z[:4]) {
		t.Errorf("big-endian: %v, %v", got, err)
	}

	f4 := make([]byte, 4*4*3)
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"float64", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }", make([]byte, 64)), "dtype <f8"},
		{"nz 3", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 3), }", f4), "shape [4 3], want (N, 4) or (N, 4, 1, 1)"},
		{"one dimension", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (12,), }", f4), "shape [12]"},
		{"no rows", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", nil), "0 rows"},
		{"too many rows", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (10001, 4), }", make([]byte, 4*4*10001)), "10001 rows, want 1 to 10000"},
		{"huge shape", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2000000000, 4), }", f4), "rows"},
		{"short data", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", f4), "needs 64 data bytes"},
		{"too large", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", make([]byte, 1<<20)), "larger than"},
		{"fortran", npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", f4), "Fortran"},
		{"not npy", []byte("P5 1 1 255\n\x00"), "no .npy array"},
		{"truncated header", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", nil)[:30], "truncated"},
	} {
		path := filepath.Join(dir, "bad.npy")
		if err := os.WriteFile(path, tc.file, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadNoise(path, spec)
		if !errors.Is(err, ErrBadNoise) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: %v, want ErrBadNoise with %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadNoise(filepath.Join(dir, "none.npy"), spec); err == nil || errors.Is(err, ErrBadNoise) {
		t.Errorf("missing file: %v", err)
	}
}
