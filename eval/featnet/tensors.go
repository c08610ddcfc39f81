package featnet

import (
	"embed"
	"fmt"
	"slices"

	"github.com/positgan/positgan/ckpt"
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

// TensorError reports a weight tensor that is missing, has the wrong shape
// or an element type that cannot be converted to float32. It is
// ckpt.TensorError, which the safetensors decoder returns.
type TensorError = ckpt.TensorError

// readSafetensors reads the tensors of a safetensors file, leaving out the
// tensors skip reports (nil: none). Tensors in F16, BF16 and F64 are
// converted to float32; other element types are a *TensorError.
func readSafetensors(path string, skip func(name string) bool) (map[string]ckpt.Tensor, error) {
	c, err := ckpt.ReadSafetensors(path, skip)
	if err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	return c.Tensors, nil
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
