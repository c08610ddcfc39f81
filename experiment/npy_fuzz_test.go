package experiment

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
)

// FuzzDecodeNoise: any .npy bytes give latent vectors of whole rows or an
// error, never a panic, and never more rows than MaxNoiseRows.
func FuzzDecodeNoise(f *testing.F) {
	spec := gan.GeneratorSpec{Net: "G", Z: []int{4, 1, 1}, Image: datasets.Shape{C: 1, H: 2, W: 2}}
	npy := func(descr, shape string, n int) []byte {
		h := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }"
		for (10+len(h)+1)%64 != 0 {
			h += " "
		}
		h += "\n"
		var b bytes.Buffer
		b.WriteString("\x93NUMPY\x01\x00")
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
		b.WriteString(h)
		for i := range n {
			binary.Write(&b, binary.LittleEndian, math.Float32bits(float32(i)))
		}
		return b.Bytes()
	}
	if z, err := decodeNoise(npy("<f4", "(2, 4)", 8), spec); err != nil || len(z) != 8 || z[7] != 7 {
		f.Fatalf("the seed file does not decode: %v, %v", z, err)
	}
	f.Add(npy("<f4", "(2, 4)", 8))
	f.Add(npy("<f4", "(2, 4, 1, 1)", 8))
	f.Add(npy(">f4", "(1, 4)", 4))
	f.Add(npy("<f8", "(2, 4)", 16))
	f.Add(npy("<f4", "(1099511627776, 4)", 4))
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := decodeNoise(b, spec)
		if err != nil {
			return
		}
		if len(z) == 0 || len(z)%spec.ZSize() != 0 || len(z)/spec.ZSize() > MaxNoiseRows {
			t.Fatalf("%d values accepted for rows of %d", len(z), spec.ZSize())
		}
	})
}
