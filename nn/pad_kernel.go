package nn

import "github.com/positgan/positgan/compute"

func reflectPad[T compute.Float](g padGeom, dst, src []T) {
	for p := 0; p < g.n; p++ {
		in, out := src[p*g.h*g.w:(p+1)*g.h*g.w], dst[p*g.oh*g.ow:(p+1)*g.oh*g.ow]
		for i, r := range g.rows {
			row, o := in[r*g.w:(r+1)*g.w], out[i*g.ow:(i+1)*g.ow]
			for j, c := range g.cols {
				o[j] = row[c]
			}
		}
	}
}

func reflectPadBack[T compute.Float](g padGeom, dst, dy []T) {
	clear(dst)
	for p := 0; p < g.n; p++ {
		d, in := dst[p*g.h*g.w:(p+1)*g.h*g.w], dy[p*g.oh*g.ow:(p+1)*g.oh*g.ow]
		for i, r := range g.rows {
			row, o := d[r*g.w:(r+1)*g.w], in[i*g.ow:(i+1)*g.ow]
			for j, c := range g.cols {
				row[c] += o[j]
			}
		}
	}
}
