package ckpt

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func sample() *Checkpoint {
	c := New()
	c.Tensors["g/w"] = Tensor{Shape: []int{2, 3}, Data: []float32{1, -2, 3.5, float32(math.Inf(1)), 0, float32(math.Copysign(0, -1))}}
	c.Tensors["d/b"] = Tensor{Shape: []int{1}, Data: []float32{0x1p-149}}
	c.Tensors["empty"] = Tensor{Shape: []int{0, 4}, Data: []float32{}}
	c.Meta["step"] = "42"
	c.Meta["policy"] = "posit8+"
	return c
}

func TestRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.safetensors")
	want := sample()
	if err := Save(p, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Meta, want.Meta) {
		t.Errorf("meta %v, want %v", got.Meta, want.Meta)
	}
	for name, w := range want.Tensors {
		g := got.Tensors[name]
		if !reflect.DeepEqual(g.Shape, w.Shape) || len(g.Data) != len(w.Data) {
			t.Errorf("%s: shape %v len %d, want %v %d", name, g.Shape, len(g.Data), w.Shape, len(w.Data))
			continue
		}
		for i := range w.Data { // bit for bit, so -0 and +0 differ
			if math.Float32bits(g.Data[i]) != math.Float32bits(w.Data[i]) {
				t.Errorf("%s[%d] = %v, want %v", name, i, g.Data[i], w.Data[i])
			}
		}
	}
}

func TestCorrupt(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.safetensors")
	if err := Save(p, sample()); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(p)
	for name, mutate := range map[string]func([]byte) []byte{
		"truncated":   func(b []byte) []byte { return b[:len(b)-5] },
		"flipped bit": func(b []byte) []byte { b[len(b)-3] ^= 0x10; return b },
		"not a file":  func([]byte) []byte { return []byte("hello, world") },
		"empty":       func([]byte) []byte { return nil },
	} {
		bad := mutate(append([]byte(nil), good...))
		q := filepath.Join(dir, "bad.safetensors")
		os.WriteFile(q, bad, 0o644)
		if _, err := Load(q); !IsCorrupt(err) {
			t.Errorf("%s: Load error %v, want a CorruptError", name, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing")); err == nil || IsCorrupt(err) {
		t.Errorf("missing file: %v, want a plain I/O error", err)
	}
	c := sample()
	c.Tensors["bad"] = Tensor{Shape: []int{3}, Data: []float32{1}}
	if err := Save(filepath.Join(dir, "x"), c); err == nil {
		t.Error("Save accepted a tensor whose shape does not match its data")
	}
}
