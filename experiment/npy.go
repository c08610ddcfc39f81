package experiment

// Float32 arrays in numpy's .npy format, so that a generator's inputs and
// outputs compare with PyTorch's exactly: latent noise read from a file
// (positgan sample --noise) and outputs written before any 8-bit
// conversion (--npy).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/regfile"
	"github.com/positgan/positgan/policy"
)

// MaxNoiseRows bounds the latent vectors of a noise file (ReadNoise): as
// many images as positgan sample --n draws at most.
const MaxNoiseRows = 10000

// maxNPYHeader bounds the header dictionary of a .npy file read.
const maxNPYHeader = 1 << 16

// ErrBadNoise is the error of ReadNoise for a file that is a .npy array,
// or claims to be, but not one of latent vectors the generator takes.
var ErrBadNoise = errors.New("not an array of latent vectors")

// WriteNPY writes data, of the given shape in C order, to path as a
// little-endian float32 .npy array (format 1.0), as numpy.save writes
// it. The file is written under a temporary name and renamed, so path
// never holds a partial file.
func WriteNPY(path string, data []float32, shape []int) error {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n != len(data) {
		return fmt.Errorf("experiment: %d values do not make an array of shape %v", len(data), shape)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return encodeNPY(w, data, shape) })
}

// encodeNPY writes the .npy array of WriteNPY to w.
func encodeNPY(w io.Writer, data []float32, shape []int) error {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", tuple)
	// Magic (6), version (2), length (2), dictionary and its padding: a
	// multiple of 64 bytes ending in a newline, as numpy writes it.
	pad := 63 - (10+len(dict))%64
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	if len(hdr) > math.MaxUint16 {
		return fmt.Errorf("experiment: .npy header of %d bytes", len(hdr))
	}
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	b.Write(raw)
	_, err := w.Write(b.Bytes())
	return err
}

// ReadNoise reads the latent vectors of a generator of spec from the
// .npy file path: a float32 array (little- or big-endian, C order) of N
// rows, N from 1 to MaxNoiseRows, each of spec.ZSize() values, of shape
// (N, ZSize) or (N, spec.Z...), such as (N, 100, 1, 1) for DCGAN. A file
// that is no such array is an error wrapping ErrBadNoise.
func ReadNoise(path string, spec gan.GeneratorSpec) ([]float32, error) {
	z, err := readNoise(path, spec)
	if errors.Is(err, ErrBadNoise) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return z, err
}

// readNoise is ReadNoise without the file's name in the errors wrapping
// ErrBadNoise.
func readNoise(path string, spec gan.GeneratorSpec) ([]float32, error) {
	f, _, err := regfile.Open(path) // a named pipe would block
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Never read more than the largest array accepted could take.
	limit := int64(maxNPYHeader) + 10 + 4*int64(MaxNoiseRows)*int64(spec.ZSize())
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: larger than %d rows of %d values", ErrBadNoise, MaxNoiseRows, spec.ZSize())
	}
	return decodeNoise(b, spec)
}

func decodeNoise(b []byte, spec gan.GeneratorSpec) ([]float32, error) {
	descr, fortran, shape, data, err := parseNPY(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadNoise, err)
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch descr {
	case "<f4", "=f4":
	case ">f4":
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf("%w: dtype %s, want float32 (<f4)", ErrBadNoise, descr)
	}
	nz := spec.ZSize()
	want := fmt.Sprintf("(N, %d)", nz)
	if len(spec.Z) > 1 {
		want += fmt.Sprintf(" or (N, %s)", strings.Trim(strings.ReplaceAll(fmt.Sprint(spec.Z), " ", ", "), "[]"))
	}
	if len(shape) == 0 || !(slices.Equal(shape[1:], []int{nz}) || slices.Equal(shape[1:], spec.Z)) {
		return nil, fmt.Errorf("%w: shape %v, want %s", ErrBadNoise, shape, want)
	}
	if fortran && len(shape) > 1 && nz > 1 && shape[0] > 1 {
		return nil, fmt.Errorf("%w: Fortran order, want C order", ErrBadNoise)
	}
	n := shape[0]
	if n < 1 || n > MaxNoiseRows {
		return nil, fmt.Errorf("%w: %d rows, want 1 to %d", ErrBadNoise, n, MaxNoiseRows)
	}
	if len(data) != 4*n*nz {
		return nil, fmt.Errorf("%w: shape %v needs %d data bytes, the file holds %d", ErrBadNoise, shape, 4*n*nz, len(data))
	}
	z := make([]float32, n*nz)
	for i := range z {
		z[i] = math.Float32frombits(order.Uint32(data[4*i:]))
	}
	return z, nil
}

// parseNPY splits the .npy array b into its header's fields and its data.
func parseNPY(b []byte) (descr string, fortran bool, shape []int, data []byte, err error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return "", false, nil, nil, errors.New("no .npy array")
	}
	var hlen, start int
	switch b[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:])), 10
	case 2, 3:
		if len(b) < 12 {
			return "", false, nil, nil, errors.New("truncated .npy header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(b[8:])), 12
	default:
		return "", false, nil, nil, fmt.Errorf(".npy format version %d", b[6])
	}
	if hlen > maxNPYHeader || start+hlen > len(b) {
		return "", false, nil, nil, errors.New("truncated .npy header")
	}
	h := string(b[start : start+hlen])
	data = b[start+hlen:]
	field := func(key string) (string, bool) {
		i := strings.Index(h, "'"+key+"'")
		if i < 0 {
			return "", false
		}
		rest := strings.TrimLeft(h[i+len(key)+2:], " ")
		if !strings.HasPrefix(rest, ":") {
			return "", false
		}
		return strings.TrimLeft(rest[1:], " "), true
	}
	d, ok1 := field("descr")
	fo, ok2 := field("fortran_order")
	sh, ok3 := field("shape")
	if !ok1 || !ok2 || !ok3 {
		return "", false, nil, nil, errors.New("bad .npy header")
	}
	if len(d) < 2 || d[0] != '\'' || strings.IndexByte(d[1:], '\'') < 0 {
		return "", false, nil, nil, errors.New("bad .npy header: descr")
	}
	descr = d[1 : 1+strings.IndexByte(d[1:], '\'')]
	fortran = strings.HasPrefix(fo, "True")
	if !fortran && !strings.HasPrefix(fo, "False") {
		return "", false, nil, nil, errors.New("bad .npy header: fortran_order")
	}
	end := strings.IndexByte(sh, ')')
	if !strings.HasPrefix(sh, "(") || end < 0 {
		return "", false, nil, nil, errors.New("bad .npy header: shape")
	}
	for _, s := range strings.Split(sh[1:end], ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		k, err := strconv.Atoi(s)
		if err != nil || k < 0 || k > math.MaxInt32 {
			return "", false, nil, nil, fmt.Errorf("bad .npy header: shape %q", sh[:end+1])
		}
		shape = append(shape, k)
	}
	return descr, fortran, shape, data, nil
}

// SampleNoise draws one image from each latent vector of z (N rows of
// spec.ZSize() values, as ReadNoise returns them) with the generator
// checkpoint c holds, run in policy pol (nil: the checkpoint's). For a
// conditional model every image is of class class or, with class -1, N
// must be a multiple of the classes and the grid has one row of N/classes
// images per class. Errors are those of Sample, and a *ClassError.
func SampleNoise(c *ckpt.Checkpoint, pol *policy.Policy, z []float32, class int, o gan.SampleOptions) (*Samples, error) {
	return sampleNoise(c, pol, class, o, func(gan.GeneratorSpec) ([]float32, error) { return z, nil })
}

// SampleNoiseFile is SampleNoise of the latent vectors ReadNoise reads
// from the .npy file path.
func SampleNoiseFile(c *ckpt.Checkpoint, pol *policy.Policy, path string, class int, o gan.SampleOptions) (*Samples, error) {
	s, err := sampleNoise(c, pol, class, o, func(spec gan.GeneratorSpec) ([]float32, error) { return readNoise(path, spec) })
	if errors.Is(err, ErrBadNoise) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return s, err
}

// sampleNoise is SampleNoise of the noise that noise returns for the
// generator's spec.
func sampleNoise(c *ckpt.Checkpoint, pol *policy.Policy, class int, o gan.SampleOptions, noise func(gan.GeneratorSpec) ([]float32, error)) (*Samples, error) {
	return sample(c, pol, class, o, func(spec gan.GeneratorSpec, s *Samples) ([]float32, error) {
		z, err := noise(spec)
		if err != nil {
			return nil, err
		}
		nz := spec.ZSize()
		if len(z) == 0 || len(z)%nz != 0 {
			return nil, fmt.Errorf("experiment: %d noise values are no rows of %d", len(z), nz)
		}
		n := len(z) / nz
		uncond := spec
		uncond.Classes = 0
		s.Rows, s.Cols = gan.GridShape(uncond, n)
		if spec.Classes > 0 {
			s.Labels = make([]int, n)
			if class < 0 {
				if n%spec.Classes != 0 {
					return nil, fmt.Errorf("%w: %d rows; one row per class needs a multiple of %d (or a class)", ErrBadNoise, n, spec.Classes)
				}
				s.Rows, s.Cols = spec.Classes, n/spec.Classes
			}
			for i := range s.Labels {
				s.Labels[i] = class
				if class < 0 {
					s.Labels[i] = i / s.Cols
				}
			}
		}
		return z, nil
	})
}
