package nn

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/positgan/positgan/compute"
	"github.com/positgan/positgan/quant"
)

// A quantized layer's products read its weights rounded: to the Weight
// format element-wise, or block-wise along the reduction dimension of
// each product (forward and backward products block along different
// axes). Without a cache every read rounds them again: a discriminator
// read three times a GAN step (on real images, on fakes for its own
// update, on fakes for the generator's) rounds its weights three times,
// at a few dozen multiply-adds per weight for a fully connected layer at
// batch 64 a large part of the step. With CacheWeights a layer keeps each
// rounded form of its weights until they are written, which whoever
// writes them reports with Param.Changed; the rounded values are those a
// fresh rounding would give, bit for bit.
//
// Only rounding that is a function of the weights alone is cached: to
// nearest, of float32 weights read straight from their tensor. Stochastic
// rounding draws fresh bits at every read, as before; weights behind an
// N:M mask (sparse.go) are masked afresh at every read, and rounded as
// before; float64 data (gradient checks) are not cached.

// weightCache is one layer's cache, held by its roles and so shared by
// the layer's copies in every graph (Share), which read the same tensor.
// Like the roles' rounders it is used by one node at a time (a program
// runs its nodes one after another, and the graphs of a trainer one
// after another).
type weightCache struct {
	on  bool          // CacheWeights turned caching on
	det bool          // the Weight role rounds to nearest: a function of the weights
	ver atomic.Uint64 // the weights' version, bumped by each write (Param.Changed)
	// forms holds the rounded forms of the weights, by weightForm.
	forms [3]cachedForm
	// elem rounds the weights element-wise to the Weight format (to
	// nearest), for WeightWrite; nil without such a format. elemRead
	// records that a product read the element-wise form through the
	// cache (put), so that rounding it at a write is worth it.
	elem     *compute.Rounder
	elemRead bool
}

// weightForm names a rounded form of a layer's weights.
type weightForm int

const (
	formElem weightForm = iota // element-wise to the Weight format
	formRow                    // block format, blocks along the rows
	formCol                    // block format, blocks down the columns
)

// cachedForm is one rounded form of the weights and what it was rounded
// from: the tensor's values (by address and length) at version ver.
type cachedForm struct {
	valid bool
	src   *float32
	n     int
	ver   uint64
	buf   []float32
}

func newWeightCache(f LayerFormats) *weightCache {
	c := &weightCache{det: f.Weight.IsZero() || f.Weight.Rounding != quant.Stochastic}
	if c.det && f.Weight.Format != nil && f.Weight.Block.IsZero() {
		c.elem = Quantizer{Format: f.Weight.Format, Rounding: f.Weight.Rounding}.Rounder(nil)
	}
	return c
}

// changed records a write of the weights: every form is rounded again
// at its next read.
func (c *weightCache) changed() {
	if c != nil {
		c.ver.Add(1)
	}
}

// caches reports whether a node reading the weights straight from their
// tensor (not through a mask) may use the cache.
func (c *weightCache) caches(masked bool) bool { return c.on && c.det && !masked }

// get returns form f of the weights w if it holds their current version.
func (c *weightCache) get(f weightForm, w []float32) ([]float32, bool) {
	e := &c.forms[f]
	if e.valid && e.ver == c.ver.Load() && e.n == len(w) && (len(w) == 0 || e.src == unsafe.SliceData(w)) {
		return e.buf, true
	}
	return nil, false
}

// put returns the buffer form f of the current version of w is to be
// rounded into, which get returns from now on.
func (c *weightCache) put(f weightForm, w []float32) []float32 {
	if f == formElem {
		c.elemRead = true
	}
	e := &c.forms[f]
	e.buf = grow(e.buf, len(w))
	e.valid, e.src, e.n, e.ver = true, unsafe.SliceData(w), len(w), c.ver.Load()
	return e.buf
}

// A WeightWrite keeps a layer's cached element-wise rounding of its
// weights current through a write of all of them by an optimiser, which
// reports each range of values it has written (Written) while they are
// still in the processor's cache: the layer's next product then reads the
// rounding instead of rounding weights that have gone back to memory.
// The rounding is the one the product would do (element-wise, to
// nearest, from the written values), so the bits are the same. The zero
// WeightWrite does nothing but what Param.Changed does.
type WeightWrite struct {
	c      *weightCache
	w, buf []float32
}

// BeginWrite returns the WeightWrite of a write of every value of p, to
// be reported range by range with Written (ranges that do not overlap and
// together cover all of p, from any goroutines) and ended with Changed
// instead of p.Changed. It rounds only where it pays: for the weights of
// a layer whose products read their element-wise rounding through the
// cache (CacheWeights); for any other parameter it returns a WeightWrite
// that only does p.Changed.
func (p Param) BeginWrite() WeightWrite {
	c := p.wc
	if c == nil || !c.on || !c.det || c.elem == nil || !c.elemRead || p.Node == nil {
		return WeightWrite{c: c}
	}
	w := p.Data()
	e := &c.forms[formElem]
	e.valid = false
	e.buf = grow(e.buf, len(w))
	return WeightWrite{c: c, w: w, buf: e.buf}
}

// Written rounds values [lo, hi) of the parameter, which the writer has
// just written, into the cache.
func (ww WeightWrite) Written(lo, hi int) {
	if ww.buf != nil {
		ww.c.elem.Round(ww.buf[lo:hi], ww.w[lo:hi])
	}
}

// Changed ends the write, as Param.Changed does, and makes the rounding
// Written built the cache's for the new values.
func (ww WeightWrite) Changed() {
	c := ww.c
	c.changed()
	if ww.buf != nil {
		e := &c.forms[formElem]
		e.valid, e.src, e.n, e.ver = true, unsafe.SliceData(ww.w), len(ww.w), c.ver.Load()
	}
}

// elemWeights returns the weights w rounded element-wise to r's Weight
// format, and whether that slice is the cache's: w itself for an
// identity format (cached or not: nothing writes into it), the cache's
// rounding if cache allows, else a rounding into *own (the node's
// buffer). own is not used if the format is the identity.
func elemWeights[T compute.Float](r *roles, own *[]T, w []T, cache bool) ([]T, bool) {
	if r.w.IsIdentity() {
		return w, false
	}
	if w32, ok := any(w).([]float32); ok && cache {
		buf, hit := r.wc.get(formElem, w32)
		if !hit {
			buf = r.wc.put(formElem, w32)
			r.w.Round(buf, w32)
		}
		return any(buf).([]T), true
	}
	*own = grow(*own, len(w))
	compute.RoundSlice(r.w, *own, w)
	return *own, false
}

// blockWeights returns wq, the rows×cols weights w rounded element-wise,
// block-rounded by r.wB along axis (form f), or wq itself without a
// block format: the cache's rounding if cache allows, else (blocked) one
// into *buf.
func blockWeights[T compute.Float](r *roles, buf *[]T, w, wq []T, rows, cols int, axis quant.Axis, f weightForm, cache bool) []T {
	if r.wB == nil {
		return wq
	}
	if w32, ok := any(w).([]float32); ok && cache {
		b, hit := r.wc.get(f, w32)
		if !hit {
			b = r.wc.roundBlockForm(r.wB, f, w32, any(wq).([]float32), rows, cols, axis)
		}
		return any(b).([]T)
	}
	return blocked(r.wB, buf, wq, rows, cols, axis)
}

// wRead is what a node's forward records of the weights its products
// read, for its backward: the version it read, and whether the
// element-wise rounding it keeps is the cache's.
type wRead struct {
	cached bool   // the forward read the cache
	shared bool   // the node's wq is the cache's formElem buffer
	ver    uint64 // the weights' version the forward read
}

// backCache reports whether a backward product of a node whose forward
// recorded rd may use the cache: only if the weights are still the
// version the forward read. It panics if the node's element-wise
// rounding, the cache's, was rounded again since (the weights were
// written between a forward and its backward, and another node read
// them): the backward would read weights its forward did not.
func (rd wRead) backCache(r *roles, layer string) bool {
	if !rd.cached {
		return false
	}
	if rd.shared && r.wc.forms[formElem].ver != rd.ver {
		panic(fmt.Sprintf("nn: %s: the cached weights were rounded again between a forward and its backward (weights written mid-run)", layer))
	}
	return r.wc.ver.Load() == rd.ver
}

// CacheWeights turns on (or off) the caching of rounded weights for every
// quantized layer of m built by a Scope (Linear, Conv, ConvTranspose), and
// so for their copies in every graph (Share): each rounded form of a
// layer's weights is computed once per version of the weights instead of
// at every read, with the same bits. Whoever writes to the weight
// tensors of such a layer must then call Param.Changed after each write
// and never write while a graph reading them runs (between a forward and
// its backward); gan.Trainer does so for its optimiser, checkpoint loads
// and exponent-bias rebuilds.
func CacheWeights(m Module, on bool) {
	Walk(m, func(c Module) {
		if q, ok := c.(*quantLayer); ok {
			wc := q.roles().wc
			wc.on = on
			wc.changed()
		}
	})
}

// convWeights sets bb.wq to the weights w of a convolution node rounded
// element-wise to the Weight format: the cache's rounding (or w itself
// for an identity format) if the layer caches its weights, else a
// rounding (a copy) into bb.wOwn.
func convWeights[T compute.Float](st *convState, bb *convBufs[T], w []T) {
	r := st.roles
	if !r.wc.caches(st.mask != nil) {
		bb.wOwn = grow(bb.wOwn, len(w))
		compute.RoundSlice(r.w, bb.wOwn, w)
		bb.wq, bb.rd = bb.wOwn, wRead{}
		return
	}
	wq, shared := elemWeights(r, &bb.wOwn, w, true)
	bb.wq, bb.rd = wq, wRead{cached: true, shared: shared, ver: r.wc.ver.Load()}
}
