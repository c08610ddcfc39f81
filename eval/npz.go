package eval

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/internal/atomicfile"
)

// ReadStats reads statistics from a .npz file holding the arrays mu, of
// shape (d,), and sigma, of shape (d, d), as written by
// `python -m pytorch_fid --save-stats` (numpy.savez_compressed) or by
// WriteStats. Arrays may be float64 or float32, in C or Fortran order.
// Sigma must be symmetric up to a relative 1e-6 of its largest entry; it
// is stored as the average of itself and its transpose.
func ReadStats(path string) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Stats{}, fmt.Errorf("eval: %w", err)
	}
	s, err := DecodeStats(f, fi.Size())
	if err != nil {
		return Stats{}, fmt.Errorf("%w (file %s)", err, path)
	}
	return s, nil
}

// DecodeStats reads statistics in the .npz format of ReadStats from r,
// which holds size bytes. Malformed input gives an error, never a panic,
// and nothing is allocated beyond what the size bytes can inflate to; each
// member's CRC-32 is checked.
func DecodeStats(r io.ReaderAt, size int64) (Stats, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return Stats{}, fmt.Errorf("eval: not a .npz file: %w", err)
	}
	mu, muShape, err := readArray(z, size, "mu")
	if err != nil {
		return Stats{}, err
	}
	sigma, sigmaShape, err := readArray(z, size, "sigma")
	if err != nil {
		return Stats{}, err
	}
	if len(muShape) != 1 || muShape[0] == 0 {
		return Stats{}, fmt.Errorf("eval: mu has shape %v, want (d,)", muShape)
	}
	d := muShape[0]
	if len(sigmaShape) != 2 || sigmaShape[0] != d || sigmaShape[1] != d {
		return Stats{}, fmt.Errorf("eval: sigma has shape %v, want (%d, %d) to match mu", sigmaShape, d, d)
	}
	var big float64
	for _, v := range sigma {
		big = max(big, math.Abs(v))
	}
	sym := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			u, l := sigma[i*d+j], sigma[j*d+i]
			if math.Abs(u-l) > 1e-6*big {
				return Stats{}, fmt.Errorf("eval: sigma is not symmetric: sigma[%d,%d] = %g, sigma[%d,%d] = %g", i, j, u, j, i, l)
			}
			sym.SetSym(i, j, (u+l)/2)
		}
	}
	return Stats{Mu: mu, Sigma: sym}, nil
}

// WriteStats writes s to path as a .npz file with float64 arrays mu and
// sigma, compressed, in the layout pytorch-fid reads. The file is written
// under a temporary name and renamed, so path never holds a partial file.
func WriteStats(path string, s Stats) error {
	var b bytes.Buffer
	if err := EncodeStats(&b, s); err != nil {
		return err
	}
	return wrapWrite(path, atomicfile.WriteFile(path, b.Bytes()))
}

// EncodeStats writes s to w in the .npz format of WriteStats.
func EncodeStats(w io.Writer, s Stats) error {
	if err := s.check("the"); err != nil {
		return err
	}
	d := s.Dim()
	sigma := mat.NewDense(d, d, nil)
	sigma.Copy(s.Sigma)
	z := zip.NewWriter(w)
	for _, m := range []struct {
		name string
		v    any
	}{{"mu.npy", s.Mu}, {"sigma.npy", sigma}} {
		// npz.Writer leaves the members' date zero, which is no valid
		// MS-DOS date (month 0): zip tools warn. A fixed date keeps the
		// file's bytes a function of the statistics alone.
		f, err := z.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: npzDate})
		if err != nil {
			return fmt.Errorf("eval: %s: %w", m.name, err)
		}
		if err := npy.Write(f, m.v); err != nil {
			return fmt.Errorf("eval: %s: %w", m.name, err)
		}
	}
	if err := z.Close(); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}

// npzDate is the modification date of the members of the .npz files
// EncodeStats writes: 1980-01-01, the first date MS-DOS time can hold.
var npzDate = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
