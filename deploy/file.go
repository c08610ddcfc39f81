package deploy

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/positgan/positgan/quant"
)

// The container (docs/deployment.md). All integers are little-endian.
//
//	offset  size  field
//	0       8     magic "PGMODEL\x00"
//	8       4     version (u32): 1, or 2 if a tensor is stored sparse
//	12      4     flags (u32) = 0
//	16      8     file length in bytes, checksum included (u64)
//	24      4     metadata length M (u32)
//	28      4     tensor count T (u32)
//	32      M     metadata: UTF-8 JSON (Meta)
//	32+M    ...   T tensor records
//	end-4   4     CRC-32 (IEEE, as zlib's crc32) of every byte before it
//
// Version 2 gives meaning to the byte after a tensor record's dimension
// count, reserved in version 1: its layout, 0 dense, 1 N:M sparse. A
// file without sparse tensors is written as version 1, byte for byte as
// before, so that builds reading only version 1 still read it.
const (
	Magic      = "PGMODEL\x00"
	Version    = 2 // the newest version this package reads and writes
	headerSize = 32
	crcSize    = 4
	maxDims    = 8
)

// Tensor layouts in a version-2 record.
const (
	layoutDense  = 0
	layoutSparse = 1
)

// Format kinds in a tensor record.
const (
	kindPosit = 1
	kindFloat = 2
	kindFixed = 3
)

// FormatError reports a file that is not a valid .pgmodel file: truncated,
// corrupted, or malformed.
type FormatError string

func (e FormatError) Error() string { return "deploy: not a valid pgmodel file: " + string(e) }

// VersionError reports a valid container of a version this package does
// not read.
type VersionError uint32

func (e VersionError) Error() string {
	return fmt.Sprintf("deploy: pgmodel version %d; this build reads versions 1 to %d", uint32(e), Version)
}

// encode returns the file's bytes.
func (m *Model) encode() ([]byte, error) {
	meta, err := json.Marshal(m.Meta)
	if err != nil {
		return nil, fmt.Errorf("deploy: metadata: %w", err)
	}
	b := make([]byte, headerSize, headerSize+len(meta)+crcSize)
	copy(b, Magic)
	le := binary.LittleEndian
	version := uint32(1)
	for i := range m.Tensors {
		if !m.Tensors[i].Sparse.Dense() {
			version = 2
		}
	}
	le.PutUint32(b[8:], version)
	le.PutUint32(b[24:], uint32(len(meta)))
	le.PutUint32(b[28:], uint32(len(m.Tensors)))
	b = append(b, meta...)
	for i := range m.Tensors {
		if b, err = appendTensor(b, &m.Tensors[i]); err != nil {
			return nil, err
		}
	}
	le.PutUint64(b[16:], uint64(len(b)+crcSize))
	return le.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// formatKind returns the kind byte and parameters of a tensor record.
func formatKind(f quant.Format) (kind, p1, p2 uint8, scale int16, err error) {
	switch f := f.(type) {
	case quant.Posit:
		return kindPosit, uint8(f.ES()), 0, int16(f.ScaleExp()), nil
	case quant.Float:
		return kindFloat, uint8(f.E()), uint8(f.M()), int16(f.Bias()), nil
	case quant.Fixed:
		return kindFixed, uint8(f.FL()), 0, 0, nil
	}
	return 0, 0, 0, 0, fmt.Errorf("deploy: format %v has no code layout in the pgmodel file", f)
}

func appendTensor(b []byte, t *Tensor) ([]byte, error) {
	kind, p1, p2, scale, err := formatKind(t.Format)
	if err != nil {
		return nil, fmt.Errorf("deploy: tensor %s: %w", t.Name, err)
	}
	name, fname := t.Name, t.Format.String()
	if len(name) > math.MaxUint16 || len(fname) > math.MaxUint16 || len(t.Shape) > maxDims || t.Size() != len(t.Codes) {
		return nil, fmt.Errorf("deploy: tensor %s: bad name, shape %v or %d codes", name, t.Shape, len(t.Codes))
	}
	le := binary.LittleEndian
	b = le.AppendUint16(b, uint16(len(name)))
	b = append(b, name...)
	b = le.AppendUint16(b, uint16(len(fname)))
	b = append(b, fname...)
	bits := t.Format.Bits()
	b = append(b, uint8(bits), kind, p1, p2)
	b = le.AppendUint16(b, uint16(scale))
	layout := uint8(layoutDense)
	if !t.Sparse.Dense() {
		layout = layoutSparse
	}
	b = append(b, uint8(len(t.Shape)), layout)
	for _, d := range t.Shape {
		b = le.AppendUint32(b, uint32(d))
	}
	if layout == layoutDense {
		packed := Pack(t.Codes, bits)
		b = le.AppendUint32(b, uint32(len(packed)))
		return append(b, packed...), nil
	}
	s := t.Sparse
	if err := s.valid(t.Shape); err != nil {
		return nil, fmt.Errorf("deploy: tensor %s: %w", name, err)
	}
	vals, idx, err := s.compress(t.Shape, t.Codes)
	if err != nil {
		return nil, fmt.Errorf("deploy: tensor %s: %w", name, err)
	}
	b = append(b, uint8(s.N), uint8(s.M), uint8(s.From), uint8(s.To))
	for _, p := range [][]byte{Pack(vals, bits), Pack(idx, s.IndexBits())} {
		b = le.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return b, nil
}

// Pack packs codes of the given width (1 to 32 bits) LSB first: bit j of
// code i is bit i·bits+j of the stream, and bit k of the stream is bit
// k mod 8 of byte k/8. The last byte is padded with zeros. Bits of a
// code above its width are dropped.
func Pack(codes []uint32, bits int) []byte {
	out := make([]byte, (len(codes)*bits+7)/8)
	var acc uint64
	n, o := 0, 0
	mask := uint64(1)<<bits - 1
	for _, c := range codes {
		acc |= (uint64(c) & mask) << n
		n += bits
		for n >= 8 {
			out[o] = byte(acc)
			o++
			acc >>= 8
			n -= 8
		}
	}
	if n > 0 {
		out[o] = byte(acc)
	}
	return out
}

// Unpack returns the n codes of the given width that Pack packed into b.
func Unpack(b []byte, n, bits int) []uint32 {
	codes := make([]uint32, n)
	var acc uint64
	have, i := 0, 0
	mask := uint64(1)<<bits - 1
	for k := range codes {
		for have < bits {
			acc |= uint64(b[i]) << have
			i++
			have += 8
		}
		codes[k] = uint32(acc & mask)
		acc >>= bits
		have -= bits
	}
	return codes
}

// decode parses a file's bytes: the header, the version, the length and
// the checksum are checked first, in that order, so that each kind of
// damage gives its own error.
func decode(b []byte) (*Model, error) {
	le := binary.LittleEndian
	if len(b) == 0 {
		return nil, FormatError("empty file")
	}
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		if len(b) < len(Magic) && string(b) == Magic[:len(b)] {
			return nil, FormatError(fmt.Sprintf("truncated: %d bytes", len(b)))
		}
		return nil, FormatError("no PGMODEL magic at the start: not a pgmodel file")
	}
	if len(b) < headerSize+crcSize {
		return nil, FormatError(fmt.Sprintf("truncated: %d bytes, shorter than the %d-byte header and checksum", len(b), headerSize+crcSize))
	}
	version := le.Uint32(b[8:])
	if version < 1 || version > Version {
		return nil, VersionError(version)
	}
	switch n := le.Uint64(b[16:]); {
	case n > uint64(len(b)):
		return nil, FormatError(fmt.Sprintf("truncated: %d of %d bytes", len(b), n))
	case n < uint64(len(b)):
		return nil, FormatError(fmt.Sprintf("%d bytes after the end of the %d-byte model", uint64(len(b))-n, n))
	}
	body := b[:len(b)-crcSize]
	if got, want := crc32.ChecksumIEEE(body), le.Uint32(b[len(body):]); got != want {
		return nil, FormatError(fmt.Sprintf("checksum mismatch (stored %08x, computed %08x): the file is corrupt", want, got))
	}
	if le.Uint32(b[12:]) != 0 {
		return nil, FormatError("unknown flags")
	}
	r := reader{b: body, off: headerSize, version: version}
	metaLen, count := int(le.Uint32(b[24:])), int(le.Uint32(b[28:]))
	meta := r.bytes(metaLen)
	if r.err != nil {
		return nil, FormatError("metadata runs past the end of the file")
	}
	m := &Model{}
	if err := json.Unmarshal(meta, &m.Meta); err != nil {
		return nil, FormatError(fmt.Sprintf("metadata: %v", err))
	}
	if count > len(body) { // each record takes more than one byte
		return nil, FormatError(fmt.Sprintf("%d tensors in a %d-byte file", count, len(b)))
	}
	for i := 0; i < count; i++ {
		t, err := r.tensor()
		if err != nil {
			return nil, FormatError(fmt.Sprintf("tensor %d: %v", i, err))
		}
		m.Tensors = append(m.Tensors, t)
	}
	if r.off != len(body) {
		return nil, FormatError(fmt.Sprintf("%d unread bytes after the last tensor", len(body)-r.off))
	}
	if err := m.check(); err != nil {
		return nil, FormatError(err.Error())
	}
	return m, nil
}

// reader reads the records of a checked file; the first overrun sets err.
type reader struct {
	b       []byte
	off     int
	err     error
	version uint32
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		if r.err == nil {
			r.err = fmt.Errorf("runs past the end of the file")
		}
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u8() uint8 {
	if s := r.bytes(1); s != nil {
		return s[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if s := r.bytes(2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if s := r.bytes(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

// maxNameLen bounds a tensor's name in a file ("G/res3/conv1.w" is 14).
const maxNameLen = 256

// checkName reports whether name can be a tensor's name: at most
// maxNameLen bytes of printable UTF-8.
func checkName(name string) error {
	ok := len(name) > 0 && len(name) <= maxNameLen && utf8.ValidString(name)
	for _, c := range name {
		ok = ok && unicode.IsPrint(c)
	}
	if !ok {
		return fmt.Errorf("tensor name of %d bytes %.40q is not a tensor name", len(name), name)
	}
	return nil
}

func (r *reader) tensor() (Tensor, error) {
	var t Tensor
	t.Name = string(r.bytes(int(r.u16())))
	fname := string(r.bytes(int(r.u16())))
	bits, kind, p1, p2 := int(r.u8()), r.u8(), r.u8(), r.u8()
	scale := int16(r.u16())
	nd := int(r.u8())
	layout := r.u8() // reserved in version 1: not read
	if r.err != nil {
		return t, r.err
	}
	// Names are printed in errors: an over-long or unprintable one is
	// refused before it is (quoted and cut short).
	if err := checkName(t.Name); err != nil {
		return t, err
	}
	if nd > maxDims {
		return t, fmt.Errorf("%s: %d dimensions, at most %d", t.Name, nd, maxDims)
	}
	if r.version == 1 {
		layout = layoutDense
	} else if layout != layoutDense && layout != layoutSparse {
		return t, fmt.Errorf("%s: unknown layout %d", t.Name, layout)
	}
	n := 1
	for range nd {
		d := int(r.u32())
		if d > len(r.b)*8 || n*d > len(r.b)*8 { // more codes than bits in the file
			return t, fmt.Errorf("%s: shape too large for the file", t.Name)
		}
		t.Shape = append(t.Shape, d)
		n *= d
	}
	if layout == layoutSparse {
		t.Sparse = Sparsity{N: int(r.u8()), M: int(r.u8()), From: int(r.u8()), To: int(r.u8())}
		if r.err != nil {
			return t, fmt.Errorf("%s: %v", t.Name, r.err)
		}
		if err := t.Sparse.valid(t.Shape); err != nil {
			return t, fmt.Errorf("%s: %v", t.Name, err)
		}
		n = t.Sparse.kept(t.Shape) // the values stored
	}
	plen := int(r.u32())
	payload := r.bytes(plen)
	if r.err != nil {
		return t, fmt.Errorf("%s: %v", t.Name, r.err)
	}
	f, err := quant.ParseSelfContained(fname) // never a table:FILE from a .pgmodel
	if err != nil {
		return t, fmt.Errorf("%s: %v", t.Name, err)
	}
	k, q1, q2, s, err := formatKind(f)
	if err != nil || f.String() != fname || f.Bits() != bits || k != kind || q1 != p1 || q2 != p2 || s != scale {
		return t, fmt.Errorf("%s: format %q does not match its record (%d bits, kind %d, %d, %d, scale %d)", t.Name, fname, bits, kind, p1, p2, scale)
	}
	if plen != (n*bits+7)/8 {
		return t, fmt.Errorf("%s: %d payload bytes for %d codes of %d bits", t.Name, plen, n, bits)
	}
	t.Format = f
	if layout == layoutDense {
		t.Codes = Unpack(payload, n, bits)
		return t, nil
	}
	ib := t.Sparse.IndexBits()
	ilen := int(r.u32())
	indices := r.bytes(ilen)
	if r.err != nil {
		return t, fmt.Errorf("%s: %v", t.Name, r.err)
	}
	if ilen != (n*ib+7)/8 {
		return t, fmt.Errorf("%s: %d index bytes for %d indices of %d bits", t.Name, ilen, n, ib)
	}
	// Both payloads are in the file, and the dense size was bounded with
	// the shape: expanding allocates no more than the file allows.
	if t.Codes, err = t.Sparse.expand(t.Shape, Unpack(payload, n, bits), Unpack(indices, n, ib)); err != nil {
		return t, fmt.Errorf("%s: %v", t.Name, err)
	}
	return t, nil
}
