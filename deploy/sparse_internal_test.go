package deploy

import (
	"slices"
	"testing"
)

// FuzzSparsity: for any small shape, pattern and codes, compress of the
// codes masked to the pattern succeeds, keeps exactly kept() values, and
// expand gives the masked codes back; expand of arbitrary indices either
// errs or gives a tensor that compresses back to the same kept set.
func FuzzSparsity(f *testing.F) {
	f.Add([]byte{2, 4, 3, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint8(1))
	f.Add([]byte{1, 3, 6, 2, 0, 0, 0, 9, 0, 1}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		if len(data) < 4 {
			return
		}
		n, m := int(data[0]%16)+1, int(data[1]%16)+1
		d0, d1 := int(data[2]%9)+1, int(data[3]%9)+1
		from, to := []int{1, 0, 0}[kind%3], []int{2, 1, 2}[kind%3]
		s := Sparsity{N: n, M: m, From: from, To: to}
		shape := []int{d0, d1}
		if s.valid(shape) != nil {
			return
		}
		codes := make([]uint32, d0*d1)
		for i := range codes {
			if 4+i < len(data) {
				codes[i] = uint32(data[4+i])
			}
		}
		vals := make([]float32, len(codes))
		for i, c := range codes {
			vals[i] = float32(c)
		}
		masked := Mask(s, shape, vals)
		for i := range codes {
			if masked[i] == 0 {
				codes[i] = 0
			}
		}
		v, idx, err := s.compress(shape, codes)
		if err != nil {
			t.Fatalf("%v %v: masked codes do not compress: %v", s, shape, err)
		}
		if len(v) != s.kept(shape) {
			t.Fatalf("%d kept, want %d", len(v), s.kept(shape))
		}
		back, err := s.expand(shape, v, idx)
		if err != nil || !slices.Equal(back, codes) {
			t.Fatalf("round trip: %v, %v != %v", err, back, codes)
		}
		// Arbitrary indices from the data.
		for i := range idx {
			if 4+i < len(data) {
				idx[i] = uint32(data[len(data)-1-i%len(data)]) % uint32(m)
			}
		}
		if back, err := s.expand(shape, v, idx); err == nil {
			if _, _, err := s.compress(shape, back); err != nil {
				t.Fatalf("expanded codes do not compress: %v", err)
			}
		}
	})
}
