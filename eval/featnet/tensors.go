package featnet

import (
	"embed"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/nlpodyssey/safetensors"
	"github.com/positgan/positgan/ckpt"
	"github.com/x448/float16"
)

// weightFiles holds the shipped LeNet weights.
//
//go:embed weights
var weightFiles embed.FS

// shipped names the shipped networks: spec, display name, file.
var shipped = []struct{ spec, file string }{
	{"lenet-mnist", "weights/lenet-mnist-v1.safetensors"},
	{"lenet-fashion", "weights/lenet-fashion-v1.safetensors"},
}

// ShippedLeNet returns a LeNet shipped with positgan: "lenet-mnist"
// (LeNet-MNIST, trained on MNIST) or "lenet-fashion" (LeNet-Fashion,
// trained on Fashion-MNIST). The weight files are versioned
// (weights/lenet-*-v1.safetensors) and compiled into the program; their
// Meta records the training command and the test accuracy.
func ShippedLeNet(spec string) (*LeNet, error) {
	for _, s := range shipped {
		if s.spec != spec {
			continue
		}
		buf, err := weightFiles.ReadFile(s.file)
		if err != nil {
			return nil, fmt.Errorf("featnet: shipped network %s: %w", spec, err)
		}
		c, err := ckpt.Decode(s.file, buf)
		if err != nil {
			return nil, fmt.Errorf("featnet: shipped network %s: %w", spec, err)
		}
		ts, meta := c.Tensors, c.Meta
		l, err := lenetFrom(ts, meta)
		if err != nil {
			return nil, fmt.Errorf("featnet: %s: %w", s.file, err)
		}
		return l, nil
	}
	return nil, fmt.Errorf("featnet: unknown feature network %q (want %s)", spec, Specs)
}

// readSafetensors reads the tensors and metadata of a safetensors file,
// leaving out the tensors skip reports (nil: none).
func readSafetensors(path string, skip func(name string) bool) (map[string]ckpt.Tensor, map[string]string, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("featnet: %w", err)
	}
	ts, meta, err := decodeSafetensors(buf, skip)
	if err != nil {
		return nil, nil, fmt.Errorf("featnet: %s: %w", path, err)
	}
	return ts, meta, nil
}

// decodeSafetensors decodes a safetensors file held in buf, leaving out the
// tensors skip reports (nil: none). Tensors in F16, BF16 and F64 are
// converted to float32; other element types are an error.
func decodeSafetensors(buf []byte, skip func(string) bool) (map[string]ckpt.Tensor, map[string]string, error) {
	st, err := safetensors.Deserialize(buf)
	if err != nil {
		return nil, nil, fmt.Errorf("not a safetensors file: %w", err)
	}
	_, md, err := safetensors.ReadMetadata(buf)
	if err != nil {
		return nil, nil, fmt.Errorf("not a safetensors file: %w", err)
	}
	meta := map[string]string{}
	for k, v := range md.Metadata() {
		meta[k] = v
	}
	ts := map[string]ckpt.Tensor{}
	for _, nt := range st.Tensors() {
		if skip != nil && skip(nt.Name) {
			continue
		}
		tv := nt.TensorView
		shape := make([]int, len(tv.Shape()))
		for i, d := range tv.Shape() {
			shape[i] = int(d)
		}
		b := tv.Data()
		var data []float32
		switch tv.DType() {
		case safetensors.F32:
			data = make([]float32, len(b)/4)
			for i := range data {
				data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		case safetensors.F64:
			data = make([]float32, len(b)/8)
			for i := range data {
				data[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
			}
		case safetensors.F16:
			data = make([]float32, len(b)/2)
			for i := range data {
				data[i] = float16.Frombits(binary.LittleEndian.Uint16(b[2*i:])).Float32()
			}
		case safetensors.BF16:
			data = make([]float32, len(b)/2)
			for i := range data {
				data[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
			}
		default:
			return nil, nil, &TensorError{Name: nt.Name, Reason: fmt.Sprintf("element type %v, want F32, F64, F16 or BF16", tv.DType())}
		}
		ts[nt.Name] = ckpt.Tensor{Shape: shape, Data: data}
	}
	return ts, meta, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
