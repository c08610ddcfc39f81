package nn

import (
	"sync"

	"github.com/positgan/positgan/compute"
)

// A convolution node whose gradient is never built (symDiff did not run:
// an inference graph such as gan.Applier's, or a generator's forward pass
// inside a discriminator's update; convState.lend) reads its im2col columns, its product
// in matrix layout and its rounded input only while its forward call
// runs. They are the largest buffers of a layer (the columns of a 3×3
// convolution are nine times its input: 600 MB for 64 channels at
// 512×512, the last layers of ESRGAN's RRDBNet x4 on a 128×128 image), so
// such a node borrows them from scratchPool for the call instead of
// keeping its own: a forward pass holds one set at a time rather than one
// per layer. The values do not change: every kernel writes all of the
// buffer it then reads (im2col zeroes the padding, the GEMMs run with
// β = 0, rounding writes every element).
//
// The pool is the one package-level variable of nn besides the
// registries: a cache of memory, like gonum/mat's workspace pools, that
// holds no state a result depends on.
var scratchPool = sync.Pool{New: func() any { return new(convScratch) }}

// convScratch is one set of borrowed buffers.
type convScratch struct {
	b32 scratchBufs[float32]
	b64 scratchBufs[float64]
}

type scratchBufs[T compute.Float] struct{ xq, col, yt []T }

func (s *scratchBufs[T]) lend(b *convBufs[T]) { b.xq, b.col, b.yt = s.xq, s.col, s.yt }

func (s *scratchBufs[T]) take(b *convBufs[T]) {
	s.xq, s.col, s.yt = b.xq, b.col, b.yt
	b.xq, b.col, b.yt = nil, nil, nil
}

// borrow gives st's buffers the pool's; giveBack returns them, grown as
// the call needed, and leaves st without.
func (st *convState) borrow() *convScratch {
	s := scratchPool.Get().(*convScratch)
	s.b32.lend(&st.b32)
	s.b64.lend(&st.b64)
	return s
}

func (st *convState) giveBack(s *convScratch) {
	s.b32.take(&st.b32)
	s.b64.take(&st.b64)
	scratchPool.Put(s)
}
