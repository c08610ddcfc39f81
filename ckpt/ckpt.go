// Package ckpt reads and writes checkpoints: named float32 tensors plus
// string metadata, in the safetensors container
// (https://github.com/huggingface/safetensors), so that other tools can
// open them. It holds positgan's only safetensors decoder: ReadSafetensors
// also reads files written elsewhere (PyTorch state_dicts, say), converting
// F64, F16 and BF16 tensors to float32.
//
// A checkpoint also records a format version and a SHA-256 of its metadata
// and tensor data in the safetensors metadata, so that a truncated or
// corrupted file is reported as such instead of silently loading wrong
// parameters or settings. (Version 1 files, whose checksum covers the
// tensors only, are still read.) Files are written atomically (temporary
// file and rename). Malformed input gives an error, never a panic, and
// nothing is allocated beyond a small multiple of the input's size.
package ckpt

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/nlpodyssey/safetensors"
	"github.com/x448/float16"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/regfile"
)

// Version is the checkpoint layout version this package writes: its
// checksum covers the metadata and the tensors.
const Version = "positgan-ckpt-2"

// VersionTensorsOnly is the earlier version, whose checksum covers the
// tensors only. Load still reads it.
const VersionTensorsOnly = "positgan-ckpt-1"

const (
	keyVersion = "positgan.version"
	keySHA     = "positgan.sha256"
)

// Tensor is a dense float32 array with its shape.
type Tensor struct {
	Shape []int
	Data  []float32
}

// Checkpoint is a set of named tensors and string metadata.
type Checkpoint struct {
	Tensors map[string]Tensor
	Meta    map[string]string
}

// New returns an empty checkpoint.
func New() *Checkpoint {
	return &Checkpoint{Tensors: map[string]Tensor{}, Meta: map[string]string{}}
}

// CorruptError reports a checkpoint file that cannot be trusted.
type CorruptError struct {
	Path   string
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("ckpt: %s is not a valid checkpoint: %s", e.Path, e.Reason)
}

// Save writes c to path atomically.
func Save(path string, c *Checkpoint) error {
	return atomicfile.Write(path, func(w io.Writer) error { return encode(w, c) })
}

// encode writes c to w as Save lays it out.
func encode(w io.Writer, c *Checkpoint) error {
	views := make(map[string]safetensors.TensorView, len(c.Tensors))
	for _, name := range sortedNames(c.Tensors) {
		t := c.Tensors[name]
		n := 1
		shape := make([]uint64, len(t.Shape))
		for i, d := range t.Shape {
			if d < 0 {
				return fmt.Errorf("ckpt: tensor %q has negative dimension %d", name, d)
			}
			n *= d
			shape[i] = uint64(d)
		}
		if n != len(t.Data) {
			return fmt.Errorf("ckpt: tensor %q: shape %v needs %d values, has %d", name, t.Shape, n, len(t.Data))
		}
		v, err := safetensors.NewTensorView(safetensors.F32, shape, f32Bytes(t.Data))
		if err != nil {
			return fmt.Errorf("ckpt: tensor %q: %w", name, err)
		}
		views[name] = v
	}
	meta := make(map[string]string, len(c.Meta)+2)
	for k, v := range c.Meta {
		meta[k] = v
	}
	meta[keyVersion] = Version
	meta[keySHA] = digestAll(meta, c.Tensors)
	if err := safetensors.SerializeToWriter(views, meta, w); err != nil {
		return fmt.Errorf("ckpt: %w", err)
	}
	return nil
}

// Load reads a checkpoint written by Save. A file that is not a
// safetensors file, has another version, or whose data does not match its
// checksum gives a *CorruptError. Use ReadSafetensors for safetensors files
// written by other tools. Only a regular file is read: a named pipe or a
// device is refused at once.
func Load(path string) (*Checkpoint, error) {
	buf, err := regfile.ReadFile(path, 0)
	if err != nil {
		return nil, fmt.Errorf("ckpt: %w", err)
	}
	return Decode(path, buf)
}

// Decode is Load for a checkpoint held in memory (an embedded file, say);
// name is what errors call it.
func Decode(name string, buf []byte) (*Checkpoint, error) {
	st, meta, err := parse(name, buf)
	if err != nil {
		return nil, err
	}
	v := meta[keyVersion]
	if v != Version && v != VersionTensorsOnly {
		return nil, &CorruptError{name, fmt.Sprintf("version %q, want %q or %q", v, Version, VersionTensorsOnly)}
	}
	c, err := convert(st, meta, nil)
	if err != nil {
		return nil, &CorruptError{name, err.Error()}
	}
	if v == VersionTensorsOnly {
		if want, got := c.Meta[keySHA], digest(c.Tensors); want != got {
			return nil, &CorruptError{name, "tensor data does not match its checksum"}
		}
	} else if want, got := c.Meta[keySHA], digestAll(c.Meta, c.Tensors); want != got {
		return nil, &CorruptError{name, "metadata or tensor data does not match the checksum"}
	}
	delete(c.Meta, keyVersion)
	delete(c.Meta, keySHA)
	return c, nil
}

// ReadSafetensors reads any safetensors file, such as one written by
// PyTorch tools: it needs no positgan version or checksum, and checks none.
// Tensors in F32, F64, F16 and BF16 are converted to float32 (rounding F64
// to nearest); a tensor of another element type is a *TensorError naming
// it. Tensors for which skip reports true are left out before their type is
// looked at (skip nil: none). All metadata is kept in Meta. A file that is
// not a safetensors file gives a *CorruptError.
func ReadSafetensors(path string, skip func(name string) bool) (*Checkpoint, error) {
	buf, err := regfile.ReadFile(path, 0)
	if err != nil {
		return nil, fmt.Errorf("ckpt: %w", err)
	}
	return DecodeSafetensors(path, buf, skip)
}

// DecodeSafetensors is ReadSafetensors for a file held in memory; name is
// what errors call it.
func DecodeSafetensors(name string, buf []byte, skip func(name string) bool) (*Checkpoint, error) {
	st, meta, err := parse(name, buf)
	if err != nil {
		return nil, err
	}
	c, err := convert(st, meta, skip)
	if err != nil {
		return nil, fmt.Errorf("ckpt: %s: %w", name, err)
	}
	return c, nil
}

// parse reads the safetensors header and metadata of buf.
func parse(name string, buf []byte) (safetensors.SafeTensors, map[string]string, error) {
	_, md, err := safetensors.ReadMetadata(buf)
	if err != nil {
		return safetensors.SafeTensors{}, nil, &CorruptError{name, "not a safetensors file: " + err.Error()}
	}
	st, err := safetensors.Deserialize(buf) // parses the header again; cannot fail now
	if err != nil {
		return safetensors.SafeTensors{}, nil, &CorruptError{name, "not a safetensors file: " + err.Error()}
	}
	meta := make(map[string]string, len(md.Metadata()))
	for k, v := range md.Metadata() {
		meta[k] = v
	}
	return st, meta, nil
}

// convert returns the tensors of st not skipped, as float32, with meta.
func convert(st safetensors.SafeTensors, meta map[string]string, skip func(string) bool) (*Checkpoint, error) {
	c := &Checkpoint{Tensors: map[string]Tensor{}, Meta: meta}
	for _, nt := range st.Tensors() {
		if skip != nil && skip(nt.Name) {
			continue
		}
		tv := nt.TensorView
		shape := make([]int, len(tv.Shape()))
		n := uint64(1)
		for i, d := range tv.Shape() {
			// The container checks that shape and data size agree, modulo
			// 2^64: a product that wraps must not pass.
			if d > math.MaxInt32 || (d != 0 && n > math.MaxInt64/d) {
				return nil, &TensorError{Name: nt.Name, Reason: fmt.Sprintf("shape %v too large", tv.Shape())}
			}
			n *= d
			shape[i] = int(d)
		}
		if size := uint64(tv.DType().Size()); n*size != uint64(len(tv.Data())) {
			return nil, &TensorError{Name: nt.Name, Reason: fmt.Sprintf("shape %v needs %d bytes, has %d", tv.Shape(), n*size, len(tv.Data()))}
		}
		var data []float32
		switch b := tv.Data(); tv.DType() {
		case safetensors.F32:
			data = f32s(b)
		case safetensors.F64:
			data = f64s(b)
		case safetensors.F16:
			data = f16s(b)
		case safetensors.BF16:
			data = bf16s(b)
		default:
			return nil, &TensorError{Name: nt.Name, Reason: fmt.Sprintf("element type %v, want F32, F64, F16 or BF16", tv.DType())}
		}
		c.Tensors[nt.Name] = Tensor{Shape: shape, Data: data}
	}
	return c, nil
}

// TensorError reports a tensor that cannot be used: of an element type
// ReadSafetensors does not convert, or (from callers such as featnet)
// missing or of the wrong shape. Its message names the tensor and leaves
// the package and file to whoever wraps it.
type TensorError struct {
	Name   string
	Reason string
}

func (e *TensorError) Error() string { return fmt.Sprintf("tensor %q: %s", e.Name, e.Reason) }

// IsCorrupt reports whether err is a *CorruptError.
func IsCorrupt(err error) bool {
	var c *CorruptError
	return errors.As(err, &c)
}

// digest hashes names, shapes and values in name order.
func digest(ts map[string]Tensor) string {
	h := sha256.New()
	var b [8]byte
	for _, name := range sortedNames(ts) {
		t := ts[name]
		io.WriteString(h, name)
		h.Write([]byte{0})
		for _, d := range t.Shape {
			binary.LittleEndian.PutUint64(b[:], uint64(d))
			h.Write(b[:])
		}
		h.Write(f32Bytes(t.Data))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// digestAll hashes the version, every metadata entry but the checksum in
// key order (each string length-prefixed), then what digest hashes.
func digestAll(meta map[string]string, ts map[string]Tensor) string {
	h := sha256.New()
	var b [8]byte
	str := func(s string) {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		io.WriteString(h, s)
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if k != keySHA {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	str(Version)
	binary.LittleEndian.PutUint64(b[:], uint64(len(keys)))
	h.Write(b[:])
	for _, k := range keys {
		str(k)
		str(meta[k])
	}
	io.WriteString(h, digest(ts))
	return hex.EncodeToString(h.Sum(nil))
}

func sortedNames(ts map[string]Tensor) []string {
	names := make([]string, 0, len(ts))
	for n := range ts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func f32Bytes(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func f32s(b []byte) []float32 {
	xs := make([]float32, len(b)/4)
	for i := range xs {
		xs[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return xs
}

// f64s rounds each float64 of b to the nearest float32.
func f64s(b []byte) []float32 {
	xs := make([]float32, len(b)/8)
	for i := range xs {
		xs[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
	}
	return xs
}

// f16s widens each IEEE binary16 of b to float32, exactly.
func f16s(b []byte) []float32 {
	xs := make([]float32, len(b)/2)
	for i := range xs {
		xs[i] = float16.Frombits(binary.LittleEndian.Uint16(b[2*i:])).Float32()
	}
	return xs
}

// bf16s widens each bfloat16 of b to float32: bfloat16 is the top half of
// a float32.
func bf16s(b []byte) []float32 {
	xs := make([]float32, len(b)/2)
	for i := range xs {
		xs[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
	}
	return xs
}
