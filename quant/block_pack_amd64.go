//go:build amd64 && !purego

package quant

// mxPanelAVX2 rounds bands of 32 rows of 8·nv columns (row stride 8·nv,
// the bands one after another) from src into dst as RoundPanels does,
// down the columns, each column's maximum, constants and rounding in
// registers, as long as every column of a band takes the fast rounding
// (mxRowParams); it returns how many bands it rounded. tmp holds 16·nv
// entries of scratch.
//
//go:noescape
func mxPanelAVX2(dst, src *float32, nv, bands int, p *mxRowParams, tmp *uint32) int

// maxPanelVecs is the widest panel mxPanelFast takes, in vectors of 8.
const maxPanelVecs = 8

// panelFast reports whether mxPanelFast rounds panels of width columns:
// with the AVX2 kernels in use (AVX-512 included: the panels are narrow),
// width a multiple of 8 up to 8·maxPanelVecs.
func panelFast(width int) bool {
	return blockAVX2 && width > 0 && width%8 == 0 && width <= 8*maxPanelVecs
}

// mxPanelFast rounds a prefix of the bands of 32 rows of s, a packed
// panel's rows of width columns, in place, and returns how many bands it
// rounded (mxPanelAVX2); panelFast(width) must hold.
func mxPanelFast(s []float32, width, bands int, p *mxRowParams, tmp *[16 * maxPanelVecs]uint32) int {
	if bands <= 0 {
		return 0
	}
	_ = s[bands*32*width-1]
	return mxPanelAVX2(&s[0], &s[0], width/8, bands, p, &tmp[0])
}
