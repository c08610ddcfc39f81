// Package formatinfo reports on number formats as "positgan format"
// prints them: the CSV of every code, the CSV of quantized inputs, the
// description of a format (range, precision near 1, values per binade)
// and of a block format's scale, and the plots of a format's binades and
// of the Hasse diagram of formats (quant.Lattice).
//
// It holds no format logic of its own: the values come from quant
// (quant.Describe, quant.Quantized, quant.NewLattice); this package only
// spells and draws them, so that a notebook prints what the command
// prints. Writers take the io.Writer first; the plots are written whole
// to a path (internal/atomicfile).
package formatinfo
