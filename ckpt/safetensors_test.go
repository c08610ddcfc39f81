package ckpt

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nlpodyssey/safetensors"
)

// raw is one tensor of a hand-built safetensors file: its element type,
// shape and little-endian bytes.
type raw struct {
	dtype safetensors.DType
	shape []uint64
	data  []byte
}

// u16s, u32s and u64s lay out bit patterns little-endian.
func u16s(bits ...uint16) []byte {
	b := make([]byte, 2*len(bits))
	for i, v := range bits {
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	return b
}

func u32s(bits ...uint32) []byte {
	b := make([]byte, 4*len(bits))
	for i, v := range bits {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func u64s(bits ...uint64) []byte {
	b := make([]byte, 8*len(bits))
	for i, v := range bits {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

// serialize writes ts and meta as a plain safetensors file, with no
// positgan version or checksum, as a PyTorch tool would.
func serialize(t *testing.T, ts map[string]raw, meta map[string]string) []byte {
	t.Helper()
	views := map[string]safetensors.TensorView{}
	for name, r := range ts {
		v, err := safetensors.NewTensorView(r.dtype, r.shape, r.data)
		if err != nil {
			t.Fatal(err)
		}
		views[name] = v
	}
	buf, err := safetensors.Serialize(views, meta)
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// TestDecodeSafetensorsDTypes decodes one tensor of each element type from
// bit patterns written out by hand; the expected float32s come from the
// format definitions, not from a converter.
func TestDecodeSafetensorsDTypes(t *testing.T) {
	inf := float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	for _, tc := range []struct {
		name string
		in   raw
		want []float32
	}{
		// binary16: sign, 5 exponent bits (bias 15), 10 fraction bits.
		{"F16", raw{safetensors.F16, []uint64{2, 5}, u16s(
			0x3C00, // 1
			0xC000, // -2
			0x7BFF, // (2-2^-10)·2^15 = 65504, the largest
			0x0001, // 2^-24, the smallest subnormal
			0x03FF, // 1023·2^-24, the largest subnormal
			0x0400, // 2^-14, the smallest normal
			0x3555, // (1+341/1024)·2^-2
			0x8000, // -0
			0x7C00, // +Inf
			0x3800, // 0.5
		)}, []float32{1, -2, 65504, 0x1p-24, 1023 * 0x1p-24, 0x1p-14, 1365.0 / 4096, negZero, inf, 0.5}},
		// bfloat16: sign, 8 exponent bits (bias 127), 7 fraction bits.
		{"BF16", raw{safetensors.BF16, []uint64{6}, u16s(
			0x3F80, // 1
			0xC000, // -2
			0x3EAB, // (1+43/128)·2^-2
			0x7F7F, // (2-2^-7)·2^127, the largest
			0x0001, // 2^-133: a float32 subnormal
			0xFF80, // -Inf
		)}, []float32{1, -2, 171.0 / 512, float32(math.Ldexp(255.0/128, 127)), float32(math.Ldexp(1, -133)), -inf}},
		// binary64, rounded to the nearest float32.
		{"F64", raw{safetensors.F64, []uint64{4}, u64s(
			0x3FF0000000000000, // 1
			0x3FB999999999999A, // 0.1, rounds to float32 0x3DCCCCCD
			0x3FF0000004000000, // 1+2^-26: below half a float32 ulp, rounds to 1
			0xC008000000000000, // -3
		)}, []float32{1, math.Float32frombits(0x3DCCCCCD), 1, -3}},
		{"F32", raw{safetensors.F32, []uint64{3}, u32s(0x3FC00000, 0x80000000, 0x00000001)},
			[]float32{1.5, negZero, 0x1p-149}},
	} {
		buf := serialize(t, map[string]raw{"x": tc.in}, nil)
		c, err := DecodeSafetensors("mem", buf, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := c.Tensors["x"]
		wantShape := make([]int, len(tc.in.shape))
		for i, d := range tc.in.shape {
			wantShape[i] = int(d)
		}
		if !reflect.DeepEqual(got.Shape, wantShape) || len(got.Data) != len(tc.want) {
			t.Errorf("%s: shape %v, %d values; want %v, %d", tc.name, got.Shape, len(got.Data), wantShape, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if math.Float32bits(got.Data[i]) != math.Float32bits(w) { // bit for bit: -0 is not 0
				t.Errorf("%s[%d] = %v (%#08x), want %v (%#08x)", tc.name, i, got.Data[i], math.Float32bits(got.Data[i]), w, math.Float32bits(w))
			}
		}
	}
	// A NaN stays a NaN in each type.
	for _, in := range []raw{
		{safetensors.F16, []uint64{1}, u16s(0x7E00)},
		{safetensors.BF16, []uint64{1}, u16s(0x7FC0)},
		{safetensors.F64, []uint64{1}, u64s(0x7FF8000000000000)},
	} {
		c, err := DecodeSafetensors("mem", serialize(t, map[string]raw{"x": in}, nil), nil)
		if err != nil || !math.IsNaN(float64(c.Tensors["x"].Data[0])) {
			t.Errorf("%v NaN: got %v, %v", in.dtype, c, err)
		}
	}
}

// TestReadSafetensors reads a file without positgan metadata: all its
// metadata is kept, skipped tensors are left out even when their type is
// one that cannot be converted, and Load refuses the same file.
func TestReadSafetensors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "torch.safetensors")
	buf := serialize(t, map[string]raw{
		"conv.weight":            {safetensors.F32, []uint64{1, 2}, u32s(0x3F800000, 0x40000000)},
		"bn.num_batches_tracked": {safetensors.I64, []uint64{1}, u64s(7)},
		"fc.weight":              {safetensors.F16, []uint64{1}, u16s(0x3C00)},
		"bn.running_var":         {safetensors.BF16, []uint64{2}, u16s(0x3F80, 0x4000)},
	}, map[string]string{"format": "pt"})
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	skip := func(name string) bool {
		return strings.HasPrefix(name, "fc.") || strings.HasSuffix(name, ".num_batches_tracked")
	}
	c, err := ReadSafetensors(path, skip)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Meta, map[string]string{"format": "pt"}) {
		t.Errorf("meta %v, want format=pt only", c.Meta)
	}
	want := map[string]Tensor{
		"conv.weight":    {Shape: []int{1, 2}, Data: []float32{1, 2}},
		"bn.running_var": {Shape: []int{2}, Data: []float32{1, 2}},
	}
	if !reflect.DeepEqual(c.Tensors, want) {
		t.Errorf("tensors %v, want %v", c.Tensors, want)
	}

	// Without skip, the int64 tensor is an error that names it.
	_, err = ReadSafetensors(path, nil)
	var te *TensorError
	if !errors.As(err, &te) || te.Name != "bn.num_batches_tracked" {
		t.Fatalf("unsupported dtype: error %v, want a *TensorError naming bn.num_batches_tracked", err)
	}
	for _, s := range []string{"ckpt: ", path, `tensor "bn.num_batches_tracked"`, "I64", "want F32, F64, F16 or BF16"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("unsupported dtype: error %q lacks %q", err, s)
		}
	}
	if IsCorrupt(err) {
		t.Errorf("unsupported dtype: %v is a CorruptError; the file is fine", err)
	}

	// A checkpoint needs positgan's version and checksum.
	if _, err := Load(path); !IsCorrupt(err) || !strings.Contains(err.Error(), "version") {
		t.Errorf("Load of a plain safetensors file: %v, want a CorruptError about the version", err)
	}

	if _, err := ReadSafetensors(filepath.Join(t.TempDir(), "missing"), nil); err == nil || IsCorrupt(err) {
		t.Errorf("missing file: %v, want a plain I/O error", err)
	}
}

// TestReadSafetensorsCorrupt: a file cut short, or not a safetensors file
// at all, is a *CorruptError even without a checksum to catch it.
func TestReadSafetensorsCorrupt(t *testing.T) {
	good := serialize(t, map[string]raw{
		"a": {safetensors.F16, []uint64{4}, u16s(0x3C00, 0x3C00, 0x3C00, 0x3C00)},
		"b": {safetensors.F32, []uint64{2}, u32s(0x3F800000, 0x3F800000)},
	}, nil)
	if _, err := DecodeSafetensors("good", good, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		buf  []byte
	}{
		{"one byte short", good[:len(good)-1]},
		{"data gone", good[:len(good)-12]},
		{"one byte long", append(append([]byte(nil), good...), 0)},
		{"header only", good[:8]},
		{"header cut", good[:20]},
		{"empty", nil},
		{"text", []byte("hello, world")},
	} {
		_, err := DecodeSafetensors("bad.safetensors", tc.buf, nil)
		if !IsCorrupt(err) || !strings.Contains(err.Error(), "bad.safetensors") {
			t.Errorf("%s: error %v, want a CorruptError naming bad.safetensors", tc.name, err)
		}
	}
}

// TestDecodeOtherTypes: Decode accepts a positgan checkpoint whatever float
// type its tensors are stored in, as long as the checksum (over the float32
// values) matches, and treats an integer tensor as corruption.
func TestDecodeOtherTypes(t *testing.T) {
	ts := map[string]Tensor{"w": {Shape: []int{2}, Data: []float32{1, -2}}}
	meta := map[string]string{keyVersion: Version}
	meta[keySHA] = digestAll(meta, ts)
	buf := serialize(t, map[string]raw{"w": {safetensors.BF16, []uint64{2}, u16s(0x3F80, 0xC000)}}, meta)
	c, err := Decode("bf16", buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Tensors, ts) || len(c.Meta) != 0 {
		t.Errorf("got %v %v, want %v and no metadata", c.Tensors, c.Meta, ts)
	}
	buf = serialize(t, map[string]raw{"w": {safetensors.I32, []uint64{2}, u32s(1, 2)}}, meta)
	if _, err := Decode("i32", buf); !IsCorrupt(err) || !strings.Contains(err.Error(), `tensor "w"`) {
		t.Errorf("int tensor in a checkpoint: %v, want a CorruptError naming w", err)
	}
}
