package quant

// RoundPanels rounds in place, to nearest, a rows×cols matrix stored as a
// GEMM packs an operand: in panels of width columns, panel p holding
// columns [p·width, p·width+width) as a rows×width row-major matrix (row
// stride width), the panels one after another in buf. Blocks run down the
// columns, from row 0 (along a product's reduction dimension, which the
// panels' rows are). The columns of the last panel beyond cols are
// padding and left as they are.
//
// A column's values are those of RoundMatrix(…, AlongColumn, Nearest, nil)
// on the unpacked matrix: rounding the packed panels is rounding the
// matrix and then packing it, so a GEMM may round an operand while it
// packs it, without the matrix ever being written. The one difference is
// in blocks that hold a NaN or an infinity: their values are NaN either
// way, but the sign and payload of those NaNs depend on which kernel took
// the block, and the kernels choose by the other blocks rounded in the
// same pass, which differ between the two layouts.
//
// FastPanels (for MX formats with blocks of 32 and panels of widths the
// kernel level in use has a vector path for) says where this is faster
// than rounding the matrix.
//
// It panics unless width > 0 and buf holds the panels: len(buf) ≥
// ceil(cols/width)·rows·width.
func (b BlockFormat) RoundPanels(buf []float32, rows, width, cols int) {
	b.mustBeValid()
	if rows < 0 || cols < 0 || width <= 0 {
		panic("quant: RoundPanels: bad panel shape")
	}
	npan := (cols + width - 1) / width
	if len(buf) < npan*rows*width {
		panic(errLength)
	}
	if rows == 0 || cols == 0 {
		return
	}
	k := b.kernel(Nearest, nil)
	fast := k.fused && b.block == 32 && panelFast(width) // its bands are MX blocks of 32
	var tmp [16 * maxPanelVecs]uint32
	p, r0 := 0, 0
	if fast {
		p, r0 = k.panelsFast(buf, rows, width, cols, &tmp)
	}
	if p < npan {
		k.panelsGeneral(buf, rows, width, cols, p, r0, fast, &tmp)
	}
}

// panelsFast rounds RoundPanels' panels with the vector kernel alone, as
// long as it takes every band, and returns where it stopped: panel p, its
// rows from r0 on (p = the number of panels when it did all). It needs
// no blockScratch (whose zeroing would cost as much as rounding a panel
// in the cache: a GEMM rounds each panel as it packs it).
func (k *blockKernel) panelsFast(buf []float32, rows, width, cols int, tmp *[16 * maxPanelVecs]uint32) (p, r0 int) {
	pl, nb := rows*width, rows/32
	for p = 0; p*width < cols; p++ {
		if cols-p*width < width {
			return p, 0 // padding columns: zero, not a fast band
		}
		done := mxPanelFast(buf[p*pl:(p+1)*pl], width, nb, &k.rp, tmp)
		if done < nb || rows%32 != 0 {
			return p, done * 32
		}
	}
	return p, 0
}

// panelsGeneral rounds RoundPanels' panels from panel p0's row r0 on
// (earlier ones are done), whole bands with the vector kernel if fast,
// the rest (bands it does not take, short bands, padded panels, other
// formats) with the general kernels.
func (k *blockKernel) panelsGeneral(buf []float32, rows, width, cols, p0, r0 int, fast bool, tmp *[16 * maxPanelVecs]uint32) {
	var sc blockScratch
	K := k.b.block
	pl := rows * width
	for p := p0; p*width < cols; p++ {
		pan := buf[p*pl : (p+1)*pl]
		w := min(width, cols-p*width)
		if p > p0 {
			r0 = 0
		}
		if fast && w == width {
			// Whole bands in vector calls, the bands a column
			// takes the general way for (a NaN block, an extreme
			// scale) one by one in between.
			nb := rows / K
			for r0 < nb*K {
				r0 += mxPanelFast(pan[r0*width:], width, nb-r0/K, &k.rp, tmp) * K
				if r0 < nb*K {
					k.roundColumnBand(pan, pan, width, 0, width, r0, r0+K, &sc)
					r0 += K
				}
			}
		}
		for c0 := 0; c0 < w; c0 += blockChunk {
			for r := r0; r < rows; r += K {
				k.roundColumnBand(pan, pan, width, c0, min(blockChunk, w-c0), r, min(r+K, rows), &sc)
			}
		}
	}
}

// FastPanels reports whether RoundPanels rounds panels of width columns
// with a vector kernel at the kernel level in use (an MX format with
// float elements and blocks of 32, width a multiple of 8 up to 64, AVX2
// or AVX-512): others go through the general kernels a band of 32 rows at
// a time, slower on narrow panels than rounding the matrix whole.
func (b BlockFormat) FastPanels(width int) bool {
	_, fl := b.elem.(Float)
	return b.kind == blockMX && fl && b.block == 32 && panelFast(width)
}
