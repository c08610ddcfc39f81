package imageio

import (
	"image"
)

// hmax and vmax are the largest sampling factors of the frame's
// components: the MCU is 8·hmax × 8·vmax pixels.
func (d *jpegDecoder) hmax() int {
	m := 1
	for _, c := range d.comp[:d.nComp] {
		m = max(m, c.h)
	}
	return m
}

func (d *jpegDecoder) vmax() int {
	m := 1
	for _, c := range d.comp[:d.nComp] {
		m = max(m, c.v)
	}
	return m
}

// finish turns the component planes into the image libjpeg outputs with
// its default settings: gray for one component, RGB for three
// (upsampled by upsample, converted from YCbCr unless the file is RGB).
func (d *jpegDecoder) finish() (image.Image, error) {
	w, h := d.width, d.height
	switch d.nComp {
	case 1:
		g := image.NewGray(image.Rect(0, 0, w, h))
		for y := range h {
			copy(g.Pix[y*w:(y+1)*w], d.planes[0][y*d.strides[0]:])
		}
		return g, nil
	case 3:
	case 4:
		return d.finishCMYK()
	default:
		return nil, jpegUnsupportedError("number of components")
	}
	var full [3][]byte
	var stride [3]int
	for i := range 3 {
		p, s, err := d.upsample(i)
		if err != nil {
			return nil, err
		}
		full[i], stride[i] = p, s
	}
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	rgbRGB := d.isRGB()
	var t *yccTables
	if !rgbRGB {
		t = newYCCTables()
	}
	row := make([]byte, 3*w)
	for y := range h {
		r0, r1, r2 := full[0][y*stride[0]:], full[1][y*stride[1]:], full[2][y*stride[2]:]
		if rgbRGB {
			for x := range w {
				row[3*x], row[3*x+1], row[3*x+2] = r0[x], r1[x], r2[x]
			}
		} else {
			t.yccRow(row, r0, r1, r2, w)
		}
		out := m.Pix[y*m.Stride : y*m.Stride+4*w]
		for x := range w {
			out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = row[3*x], row[3*x+1], row[3*x+2], 255
		}
	}
	return m, nil
}

// finishCMYK converts a 4-component image as PIL does: libjpeg outputs
// CMYK (converting YCCK, Adobe transform 2, as jdcolor.c's
// ycck_cmyk_convert), PIL reads it inverted ("CMYK;I", Adobe's
// convention) and its convert("RGB") is cmyk2rgb.
func (d *jpegDecoder) finishCMYK() (image.Image, error) {
	w, h := d.width, d.height
	var full [4][]byte
	var stride [4]int
	for i := range 4 {
		p, s, err := d.upsample(i)
		if err != nil {
			return nil, err
		}
		full[i], stride[i] = p, s
	}
	ycck := d.adobeTransformValid && d.adobeTransform == adobeTransformYCbCrK
	var t *yccTables
	if ycck {
		t = newYCCTables()
	}
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	row := make([]byte, 3*w)
	for y := range h {
		r0, r1, r2, r3 := full[0][y*stride[0]:], full[1][y*stride[1]:], full[2][y*stride[2]:], full[3][y*stride[3]:]
		if ycck {
			t.yccRow(row, r0, r1, r2, w) // R, G, B; C = 255 - R, and so on
		}
		out := m.Pix[y*m.Stride : y*m.Stride+4*w]
		for x := range w {
			var c, mg, ye byte
			if ycck {
				c, mg, ye = 255-row[3*x], 255-row[3*x+1], 255-row[3*x+2]
			} else {
				c, mg, ye = r0[x], r1[x], r2[x]
			}
			cmykToRGB(out[4*x:4*x+4], 255-c, 255-mg, 255-ye, 255-r3[x])
		}
	}
	return m, nil
}

// upsample returns component i at full resolution (at least width ×
// height samples, stride apart) as libjpeg-turbo's jdsample.c does with
// fancy upsampling on: the triangle filters for 2:1 horizontal (4:2:2),
// 2:1 vertical (4:4:0) and both (4:2:0), the first and last rows and
// columns of the component repeated as context; plain replication when
// the component is at most 2 samples wide (libjpeg's h2v1 and h2v2
// filters need 3) and for other ratios (int_upsample).
func (d *jpegDecoder) upsample(i int) ([]byte, int, error) {
	c := d.comp[i]
	hm, vm := d.hmax(), d.vmax()
	src, ss := d.planes[i], d.strides[i]
	if c.h == hm && c.v == vm {
		return src, ss, nil
	}
	if hm%c.h != 0 || vm%c.v != 0 {
		return nil, 0, jpegUnsupportedError("sampling factors that do not divide the largest")
	}
	hf, vf := hm/c.h, vm/c.v
	cw := (d.width*c.h + hm - 1) / hm
	ch := (d.height*c.v + vm - 1) / vm
	ow, oh := cw*hf, ch*vf
	out := make([]byte, ow*oh)
	in := func(r int) []byte { return src[r*ss : r*ss+cw] }
	clampRow := func(r int) int { return min(max(r, 0), ch-1) }
	switch {
	case hf == 2 && vf == 1 && cw > 2:
		for r := range ch {
			upsampleH2V1(out[r*ow:], in(r), cw)
		}
	case hf == 1 && vf == 2:
		for r := range ch {
			upsampleH1V2(out[2*r*ow:], in(r), in(clampRow(r-1)), cw, 1)
			upsampleH1V2(out[(2*r+1)*ow:], in(r), in(clampRow(r+1)), cw, 2)
		}
	case hf == 2 && vf == 2 && cw > 2:
		for r := range ch {
			upsampleH2V2(out[2*r*ow:], in(r), in(clampRow(r-1)), cw)
			upsampleH2V2(out[(2*r+1)*ow:], in(r), in(clampRow(r+1)), cw)
		}
	default: // replication
		for r := range ch {
			o := out[r*vf*ow : (r*vf+1)*ow]
			for x, v := range in(r) {
				for k := range hf {
					o[x*hf+k] = v
				}
			}
			for k := 1; k < vf; k++ {
				copy(out[(r*vf+k)*ow:(r*vf+k+1)*ow], o)
			}
		}
	}
	return out, ow, nil
}
