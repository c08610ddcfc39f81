package eval

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/regfile"
)

// ReadStats reads statistics from a .npz file holding the arrays mu, of
// shape (d,), and sigma, of shape (d, d), as written by
// `python -m pytorch_fid --save-stats` (numpy.savez_compressed) or by
// WriteStats. Arrays may be float64 or float32, in C or Fortran order.
// Sigma must be symmetric up to a relative 1e-6 of its largest entry; it
// is stored as the average of itself and its transpose.
func ReadStats(path string) (Stats, error) {
	f, fi, err := regfile.Open(path) // a named pipe is refused: it would block
	if err != nil {
		return Stats{}, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
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
	st := Stats{Mu: mu, Sigma: sym}
	if st.Features, err = readNetwork(z, size); err != nil {
		return Stats{}, err
	}
	return st, nil
}

// readNetwork returns the name of the feature network a .npz file
// records: the string array features of the files WriteStats writes, or
// network in those WriteFeatures writes, where features holds the
// features themselves; "" if neither.
func readNetwork(z *zip.Reader, size int64) (string, error) {
	if m := findMember(z, "features.npy"); m != nil {
		str, err := isStringArray(m, size)
		if err != nil {
			return "", fmt.Errorf("eval: array \"features\": %w", err)
		}
		if str {
			name, err := readString(m, size)
			if err != nil {
				return "", fmt.Errorf("eval: array \"features\": %w", err)
			}
			return name, nil
		}
	}
	if m := findMember(z, "network.npy"); m != nil {
		name, err := readString(m, size)
		if err != nil {
			return "", fmt.Errorf("eval: array \"network\": %w", err)
		}
		return name, nil
	}
	return "", nil
}

// isStringArray reports whether the NPY array of zip member f has a
// numpy string dtype (<U), by its header alone.
func isStringArray(f *zip.File, size int64) (bool, error) {
	if f.CompressedSize64 > uint64(size) {
		return false, fmt.Errorf("zip member claims %d compressed bytes in a file of %d", f.CompressedSize64, size)
	}
	rc, err := f.Open()
	if err != nil {
		return false, fmt.Errorf("zip member: %w", err)
	}
	defer rc.Close()
	h, _, err := readNPYHeader(rc, f.UncompressedSize64)
	if err != nil {
		return false, err
	}
	return strings.HasPrefix(h.descr, "<U"), nil
}

// WriteStats writes s to path as a .npz file with float64 arrays mu and
// sigma, compressed, in the layout pytorch-fid reads, and, when
// s.Features is set, a string array features naming the feature network
// and mode (numpy reads it as str(np.load(path)["features"]); pytorch-fid
// ignores it). The file is written
// under a temporary name and renamed, so path never holds a partial file.
func WriteStats(path string, s Stats) error {
	var b bytes.Buffer
	if err := EncodeStats(&b, s); err != nil {
		return err
	}
	return wrapWrite(path, atomicfile.WriteFile(path, b.Bytes()))
}

// EncodeStats writes s to w in the .npz format of WriteStats.
func EncodeStats(w io.Writer, s Stats) error { return encodeNPZ(w, s, nil) }

// encodeNPZ writes s to w as WriteStats does, or, with rows, as
// WriteFeatures does: the rows as the array features and s.Features as
// the string array network.
func encodeNPZ(w io.Writer, s Stats, rows mat.Matrix) error {
	if err := s.check("the"); err != nil {
		return err
	}
	d := s.Dim()
	sigma := mat.NewDense(d, d, nil)
	sigma.Copy(s.Sigma)
	type member struct {
		name  string
		write func(io.Writer) error
	}
	members := []member{
		{"mu.npy", func(w io.Writer) error { return npy.Write(w, s.Mu) }},
		{"sigma.npy", func(w io.Writer) error { return npy.Write(w, sigma) }},
	}
	name := "features.npy"
	if rows != nil {
		members = append(members, member{"features.npy", func(w io.Writer) error { return writeNPYMatrix(w, rows) }})
		name = "network.npy"
	}
	if s.Features != "" {
		members = append(members, member{name, func(w io.Writer) error {
			_, err := w.Write(npyString(s.Features))
			return err
		}})
	}
	z := zip.NewWriter(w)
	for _, m := range members {
		// npz.Writer leaves the members' date zero, which is no valid
		// MS-DOS date (month 0): zip tools warn. A fixed date keeps the
		// file's bytes a function of the statistics alone.
		f, err := z.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: npzDate})
		if err != nil {
			return fmt.Errorf("eval: %s: %w", m.name, err)
		}
		if err := m.write(f); err != nil {
			return fmt.Errorf("eval: %s: %w", m.name, err)
		}
	}
	if err := z.Close(); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}

// maxStringChars bounds the features string read back.
const maxStringChars = 1024

// npyString encodes s as a 0-d numpy unicode array (dtype <U n, UTF-32LE),
// NPY format 1.0 with the header padded to 64 bytes.
func npyString(s string) []byte {
	rs := []rune(s)
	hdr := fmt.Sprintf("{'descr': '<U%d', 'fortran_order': False, 'shape': (), }", len(rs))
	pad := 64 - (10+len(hdr)+1)%64
	hdr += strings.Repeat(" ", pad%64) + "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	b = append(b, hdr...)
	for _, r := range rs {
		b = binary.LittleEndian.AppendUint32(b, uint32(r))
	}
	return b
}

// readString reads a 0-d or 1-element numpy unicode array (<U n) of at
// most maxStringChars characters.
func readString(f *zip.File, size int64) (string, error) {
	if f.CompressedSize64 > uint64(size) || f.UncompressedSize64 > 4*maxStringChars+maxNPYHeader+16 {
		return "", fmt.Errorf("zip member of %d bytes", f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return "", fmt.Errorf("zip member: %w", err)
	}
	defer rc.Close()
	h, _, err := readNPYHeader(rc, f.UncompressedSize64)
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(strings.TrimPrefix(h.descr, "<U"))
	if !strings.HasPrefix(h.descr, "<U") || err != nil || n < 0 || n > maxStringChars {
		return "", fmt.Errorf("dtype %s, want a string (<U) of at most %d characters", h.descr, maxStringChars)
	}
	if len(h.shape) > 1 || len(h.shape) == 1 && h.shape[0] != 1 {
		return "", fmt.Errorf("shape %v, want one string", h.shape)
	}
	data := make([]byte, 4*n)
	if _, err := io.ReadFull(rc, data); err != nil {
		return "", fmt.Errorf("data: %w", zipErr(err))
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		r := rune(binary.LittleEndian.Uint32(data[4*i:]))
		if r == 0 {
			break // numpy pads shorter strings with NULs
		}
		sb.WriteRune(r)
	}
	return sb.String(), nil
}

// npzDate is the modification date of the members of the .npz files
// EncodeStats writes: 1980-01-01, the first date MS-DOS time can hold.
var npzDate = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
