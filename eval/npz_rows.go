package eval

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/regfile"
)

// ReadFeatures reads the features of an image set, one row per image,
// from a .npz file holding them as the array features, of shape (N, d),
// float64 or float32: a file WriteFeatures (positgan eval stats
// --save-features) writes, or numpy.savez(path, features=x). If the
// file also holds mu and sigma, they are read as ReadStats reads them,
// and the feature network's name with them; otherwise Stats holds only
// the name, if recorded, and a metric computes the statistics from the
// rows.
func ReadFeatures(path string) (Features, error) {
	f, fi, err := regfile.Open(path) // a named pipe is refused: it would block
	if err != nil {
		return Features{}, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	ft, err := DecodeFeatures(f, fi.Size())
	if err != nil {
		return Features{}, fmt.Errorf("%w (file %s)", err, path)
	}
	return ft, nil
}

// DecodeFeatures reads features in the .npz format of ReadFeatures from
// r, which holds size bytes, with the checks of DecodeStats.
func DecodeFeatures(r io.ReaderAt, size int64) (Features, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return Features{}, fmt.Errorf("eval: not a .npz file: %w", err)
	}
	m := findMember(z, "features.npy")
	if m == nil {
		return Features{}, errors.New("eval: no array \"features\" in .npz file: statistics alone do not hold the features of every image (write them with positgan eval stats --save-features)")
	}
	str, err := isStringArray(m, size)
	if err != nil {
		return Features{}, fmt.Errorf("eval: array \"features\": %w", err)
	}
	if str {
		return Features{}, errors.New("eval: array \"features\" names the feature network of statistics, it does not hold the features of every image (write them with positgan eval stats --save-features)")
	}
	data, shape, err := readMember(m, size)
	if err != nil {
		return Features{}, fmt.Errorf("eval: array \"features\": %w", err)
	}
	if len(shape) != 2 || shape[0] == 0 || shape[1] == 0 {
		return Features{}, fmt.Errorf("eval: array \"features\" has shape %v, want (N, d), one row per image", shape)
	}
	ft := Features{Rows: mat.NewDense(shape[0], shape[1], data)}
	if findMember(z, "mu.npy") != nil || findMember(z, "sigma.npy") != nil {
		if ft.Stats, err = DecodeStats(r, size); err != nil {
			return Features{}, err
		}
		if d := ft.Stats.Dim(); d != shape[1] {
			return Features{}, fmt.Errorf("eval: array \"features\" has %d columns, mu %d", shape[1], d)
		}
		return ft, nil
	}
	if ft.Stats.Features, err = readNetwork(z, size); err != nil {
		return Features{}, err
	}
	return ft, nil
}

// WriteFeatures writes f to path as a .npz file WriteStats would write
// for its statistics (computed from f.Rows when not given), with the
// rows, float64, as the array features and the feature network's name,
// f.Stats.Features, if set, as the string array network: pytorch-fid
// still reads mu and sigma, ReadStats the statistics and ReadFeatures
// everything. The file is written under a temporary name and renamed.
func WriteFeatures(path string, f Features) error {
	var b bytes.Buffer
	if err := EncodeFeatures(&b, f); err != nil {
		return err
	}
	return wrapWrite(path, atomicfile.WriteFile(path, b.Bytes()))
}

// EncodeFeatures writes f to w in the .npz format of WriteFeatures.
func EncodeFeatures(w io.Writer, f Features) error {
	if f.Rows == nil {
		return errors.New("eval: no features to write")
	}
	s := f.Stats
	if s.Dim() == 0 {
		var err error
		if s, err = StatsOf(f.Rows); err != nil {
			return err
		}
		s.Features = f.Stats.Features
	}
	if _, d := f.Rows.Dims(); d != s.Dim() {
		return fmt.Errorf("eval: %d-d features with %d-d statistics", d, s.Dim())
	}
	return encodeNPZ(w, s, f.Rows)
}

// writeNPYMatrix writes a as a float64 NPY array (<f8) of shape (rows,
// cols), C order, NPY format 1.0 with the header padded to 64 bytes.
func writeNPYMatrix(w io.Writer, a mat.Matrix) error {
	r, c := a.Dims()
	hdr := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", r, c)
	pad := 64 - (10+len(hdr)+1)%64
	hdr += strings.Repeat(" ", pad%64) + "\n"
	bw := bufio.NewWriter(w)
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	b = append(b, hdr...)
	if _, err := bw.Write(b); err != nil {
		return err
	}
	row := make([]byte, 8*c)
	for i := range r {
		for j := range c {
			binary.LittleEndian.PutUint64(row[8*j:], math.Float64bits(a.At(i, j)))
		}
		if _, err := bw.Write(row); err != nil {
			return err
		}
	}
	return bw.Flush()
}
