package ckpt

import (
	"math"
	"testing"
)

// FuzzDecode: any bytes give a checkpoint or an error, never a panic; a
// checkpoint that loads has tensors whose data fits their shapes, and
// saves and loads back equal.
func FuzzDecode(f *testing.F) {
	f.Add(saved(f, sample()))
	ts := map[string]Tensor{"w": {Shape: []int{2}, Data: []float32{1, -2}}}
	f.Add(rawFile(map[string]any{
		"w":            map[string]any{"dtype": "F32", "shape": []int{2}, "data_offsets": []int{0, 8}},
		"__metadata__": map[string]string{keyVersion: VersionTensorsOnly, keySHA: digest(ts)},
	}, f32Bytes(ts["w"].Data)))
	f.Add(rawFile(map[string]any{"h": map[string]any{"dtype": "F16", "shape": []int{1, 1}, "data_offsets": []int{0, 2}}}, []byte{0, 0x3c}))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, strict := range []bool{true, false} {
			var c *Checkpoint
			var err error
			if strict {
				c, err = Decode("fuzz", b)
			} else {
				c, err = DecodeSafetensors("fuzz", b, nil)
			}
			if err != nil {
				continue
			}
			for name, tn := range c.Tensors {
				n := 1
				for _, d := range tn.Shape {
					if d < 0 {
						t.Fatalf("%s: negative dimension in %v", name, tn.Shape)
					}
					n *= d
				}
				if n != len(tn.Data) {
					t.Fatalf("%s: shape %v with %d values", name, tn.Shape, len(tn.Data))
				}
			}
			if !strict {
				continue
			}
			c2, err := Decode("again", saved(t, c))
			if err != nil {
				t.Fatalf("saved checkpoint does not load: %v", err)
			}
			for name, tn := range c.Tensors {
				for i, v := range tn.Data {
					if math.Float32bits(v) != math.Float32bits(c2.Tensors[name].Data[i]) {
						t.Fatalf("%s[%d] changed", name, i)
					}
				}
			}
		}
	})
}
