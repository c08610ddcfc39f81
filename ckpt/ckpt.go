// Package ckpt reads and writes checkpoints: named float32 tensors plus
// string metadata, in the safetensors container
// (https://github.com/huggingface/safetensors), so that other tools can
// open them.
//
// A checkpoint also records a format version and a SHA-256 of its tensor
// data in the safetensors metadata, so that a truncated or corrupted file is
// reported as such instead of silently loading wrong parameters. Files are
// written atomically (temporary file and rename).
package ckpt

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	"github.com/nlpodyssey/safetensors"

	"github.com/positgan/positgan/internal/atomicfile"
)

// Version is the checkpoint layout version this package writes.
const Version = "positgan-ckpt-1"

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
	meta[keySHA] = digest(c.Tensors)
	return atomicfile.Write(path, func(w io.Writer) error {
		if err := safetensors.SerializeToWriter(views, meta, w); err != nil {
			return fmt.Errorf("ckpt: %w", err)
		}
		return nil
	})
}

// Load reads a checkpoint written by Save. A file that is not a
// safetensors file, has another version, or whose data does not match its
// checksum gives a *CorruptError.
func Load(path string) (*Checkpoint, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ckpt: %w", err)
	}
	return decode(path, buf)
}

// Decode is Load for a checkpoint held in memory (an embedded file, say);
// name is what errors call it.
func Decode(name string, buf []byte) (*Checkpoint, error) { return decode(name, buf) }

func decode(path string, buf []byte) (*Checkpoint, error) {
	st, err := safetensors.Deserialize(buf)
	if err != nil {
		return nil, &CorruptError{path, err.Error()}
	}
	_, md, err := safetensors.ReadMetadata(buf)
	if err != nil {
		return nil, &CorruptError{path, err.Error()}
	}
	c := New()
	for k, v := range md.Metadata() {
		c.Meta[k] = v
	}
	if v := c.Meta[keyVersion]; v != Version {
		return nil, &CorruptError{path, fmt.Sprintf("version %q, want %q", v, Version)}
	}
	for _, nt := range st.Tensors() {
		tv := nt.TensorView
		if tv.DType() != safetensors.F32 {
			return nil, &CorruptError{path, fmt.Sprintf("tensor %q has dtype %v, want F32", nt.Name, tv.DType())}
		}
		shape := make([]int, len(tv.Shape()))
		for i, d := range tv.Shape() {
			shape[i] = int(d)
		}
		c.Tensors[nt.Name] = Tensor{Shape: shape, Data: f32s(tv.Data())}
	}
	if want, got := c.Meta[keySHA], digest(c.Tensors); want != got {
		return nil, &CorruptError{path, "tensor data does not match its checksum"}
	}
	delete(c.Meta, keyVersion)
	delete(c.Meta, keySHA)
	return c, nil
}

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
