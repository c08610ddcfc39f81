package eval

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// The limits of the .npz reader. Every allocation is bounded by the bytes
// the file actually holds: a header cannot ask for more than its member
// inflates to, nor a member for more than maxInflateRatio times its
// compressed size.
const (
	maxNPYHeader    = 1 << 16 // bytes of an NPY header dictionary
	maxNPYDims      = 32      // numpy's own limit (NPY_MAXDIMS)
	maxInflateRatio = 1040    // deflate inflates to at most about 1032 times its size
)

// npyHeader is the parsed header of an NPY array.
type npyHeader struct {
	descr   string // numpy dtype string, e.g. "<f8"
	fortran bool
	shape   []int
}

// findMember returns the zip member called name, or nil.
func findMember(z *zip.Reader, name string) *zip.File {
	for _, f := range z.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// readArray reads the float array name from z, in C order. The zip
// member's CRC is checked; a header whose shape does not match the data
// that follows it, in either direction, is an error.
func readArray(z *zip.Reader, size int64, name string) ([]float64, []int, error) {
	f := findMember(z, name+".npy")
	if f == nil {
		return nil, nil, fmt.Errorf("eval: no array %q in .npz file", name)
	}
	data, shape, err := readMember(f, size)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: array %q: %w", name, err)
	}
	return data, shape, nil
}

func readMember(f *zip.File, size int64) ([]float64, []int, error) {
	// The sizes in the zip directory are claims: bound them by the file.
	switch {
	case f.CompressedSize64 > uint64(size):
		return nil, nil, fmt.Errorf("zip member claims %d compressed bytes in a file of %d", f.CompressedSize64, size)
	case f.Method == zip.Store && f.UncompressedSize64 != f.CompressedSize64:
		return nil, nil, fmt.Errorf("stored zip member claims %d bytes, holds %d", f.UncompressedSize64, f.CompressedSize64)
	case f.UncompressedSize64 > maxInflateRatio*(f.CompressedSize64+1):
		return nil, nil, fmt.Errorf("zip member claims %d bytes inflated from %d", f.UncompressedSize64, f.CompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("zip member: %w", err)
	}
	defer rc.Close()
	h, hdrLen, err := readNPYHeader(rc, f.UncompressedSize64)
	if err != nil {
		return nil, nil, err
	}
	var item int
	var order binary.ByteOrder = binary.LittleEndian
	descr := h.descr
	if descr != "" && strings.ContainsRune("<>=|", rune(descr[0])) {
		if descr[0] == '>' {
			order = binary.BigEndian
		}
		descr = descr[1:]
	}
	switch descr {
	case "f8":
		item = 8
	case "f4":
		item = 4
	default:
		return nil, nil, fmt.Errorf("dtype %s, want float64 or float32", h.descr)
	}
	avail := f.UncompressedSize64 - hdrLen // bytes after the header
	n := uint64(1)
	for _, k := range h.shape {
		if k != 0 && n > avail/uint64(k) {
			return nil, nil, fmt.Errorf("shape %v needs more than the %d data bytes the array holds", h.shape, avail)
		}
		n *= uint64(k)
	}
	if want := n * uint64(item); want != avail {
		return nil, nil, fmt.Errorf("shape %v of %s needs %d data bytes, the array holds %d", h.shape, h.descr, want, avail)
	}
	if h.fortran && len(h.shape) > 2 {
		return nil, nil, fmt.Errorf("Fortran order with %d dimensions is not supported", len(h.shape))
	}
	raw := make([]byte, avail)
	if _, err := io.ReadFull(rc, raw); err != nil {
		return nil, nil, fmt.Errorf("data: %w", zipErr(err))
	}
	// Read on to the end, where archive/zip checks length and CRC.
	var one [1]byte
	if k, err := rc.Read(one[:]); k > 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("data continues past the array")
		}
		return nil, nil, fmt.Errorf("data: %w", zipErr(err))
	}
	data := make([]float64, n)
	for i := range data {
		if item == 8 {
			data[i] = math.Float64frombits(order.Uint64(raw[8*i:]))
		} else {
			data[i] = float64(math.Float32frombits(order.Uint32(raw[4*i:])))
		}
	}
	if len(h.shape) == 2 && h.fortran {
		rows, cols := h.shape[0], h.shape[1]
		c := make([]float64, len(data))
		for j := range cols {
			for i := range rows {
				c[i*cols+j] = data[j*rows+i]
			}
		}
		data = c
	}
	return data, h.shape, nil
}

// zipErr names the zip reader's errors in words.
func zipErr(err error) error {
	switch {
	case errors.Is(err, zip.ErrChecksum):
		return errors.New("CRC-32 mismatch: the file is corrupt")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errors.New("truncated: the data ends before its header's shape")
	}
	return err
}

// readNPYHeader reads the magic, version and header dictionary of an NPY
// array of total bytes, and returns the header and its length with the
// preamble.
func readNPYHeader(r io.Reader, total uint64) (npyHeader, uint64, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return npyHeader{}, 0, fmt.Errorf("NPY header: %w", zipErr(err))
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return npyHeader{}, 0, errors.New("not an NPY array (bad magic)")
	}
	var n, start uint64
	switch pre[6] {
	case 1:
		n, start = uint64(binary.LittleEndian.Uint16(pre[8:])), 10
	case 2, 3:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return npyHeader{}, 0, fmt.Errorf("NPY header: %w", zipErr(err))
		}
		n, start = uint64(binary.LittleEndian.Uint32(append(pre[8:10:10], b[:]...))), 12
	default:
		return npyHeader{}, 0, fmt.Errorf("NPY version %d.%d not supported", pre[6], pre[7])
	}
	if n > maxNPYHeader || start+n > total {
		return npyHeader{}, 0, fmt.Errorf("NPY header length %d exceeds the array's %d bytes or the limit %d", n, total, maxNPYHeader)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return npyHeader{}, 0, fmt.Errorf("NPY header: %w", zipErr(err))
	}
	h, err := parseNPYHeader(string(buf))
	if err != nil {
		return npyHeader{}, 0, fmt.Errorf("NPY header: %w", err)
	}
	return h, start + n, nil
}

// parseNPYHeader parses the Python dict literal of an NPY header:
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }, keys in
// any order, padded with spaces and ending in a newline.
func parseNPYHeader(s string) (npyHeader, error) {
	if !strings.HasSuffix(s, "\n") {
		return npyHeader{}, errors.New("does not end in a newline")
	}
	p := &dictParser{s: strings.TrimRight(s, " \n")}
	var h npyHeader
	seen := map[string]bool{}
	if !p.eat('{') {
		return h, errors.New("does not start with '{'")
	}
	for !p.eat('}') {
		if p.skip(); p.i == len(p.s) {
			return h, errors.New("no closing '}'")
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if seen[key] {
			return h, fmt.Errorf("key %q given twice", key)
		}
		seen[key] = true
		if !p.eat(':') {
			return h, fmt.Errorf("no ':' after key %q", key)
		}
		switch key {
		case "descr":
			h.descr, err = p.str()
		case "fortran_order":
			h.fortran, err = p.boolean()
		case "shape":
			h.shape, err = p.tuple()
		default:
			return h, fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			return h, fmt.Errorf("%s: %w", key, err)
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return h, errors.New("no ',' or '}' after a value")
			}
			break
		}
	}
	if p.skip(); p.i != len(p.s) {
		return h, errors.New("text after the closing '}'")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("no key %q", k)
		}
	}
	return h, nil
}

type dictParser struct {
	s string
	i int
}

func (p *dictParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *dictParser) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a quoted string without escapes.
func (p *dictParser) str() (string, error) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", errors.New("want a quoted string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.ContainsRune(v, '\\') {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += end + 2
	return v, nil
}

func (p *dictParser) boolean() (bool, error) {
	p.skip()
	for _, w := range []string{"True", "False"} {
		if strings.HasPrefix(p.s[p.i:], w) {
			p.i += len(w)
			return w == "True", nil
		}
	}
	return false, errors.New("want True or False")
}

// tuple reads a tuple of non-negative integers: (), (3,), (3, 4).
func (p *dictParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("want a tuple")
	}
	dims := []int{}
	for !p.eat(')') {
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("want a non-negative integer dimension")
		}
		d, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil || d > math.MaxInt32 {
			return nil, fmt.Errorf("dimension %s out of range", p.s[p.i:j])
		}
		p.i = j
		if len(dims) == maxNPYDims {
			return nil, fmt.Errorf("more than %d dimensions", maxNPYDims)
		}
		dims = append(dims, int(d))
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, errors.New("no ',' or ')' after a dimension")
			}
			if len(dims) == 1 {
				return nil, errors.New("a one-element tuple needs a trailing comma")
			}
			break
		}
	}
	return dims, nil
}
