package deploy

import (
	"fmt"

	"github.com/positgan/positgan/quant"
)

// PositFor returns the posit format of the deployment table's b-bit rows
// (experiment.DeployCompare): posit(b,1), or posit(b,0) below 5 bits
// (posit(4,0), as the posit fork's 4-bit super-resolution uses).
func PositFor(bits int) string {
	es := 1
	if bits < 5 {
		es = 0
	}
	return fmt.Sprintf("posit(%d,%d)", bits, es)
}

// FloatCandidates returns every b-bit float the deployment table's
// search tries (experiment.DeployCompare): each split 1 + e + m = b with
// m >= 1, with IEEE specials overflowing to Inf, IEEE
// specials saturating, and no specials (every code finite, saturating),
// each with and without subnormals, as far as the float grammar of
// quant.Parse allows them (IEEE specials need e >= 2). OCP's and FNUZ's
// encodings are left out: for a deployed generator they hold fewer
// finite values than special=none and round the same way otherwise.
func FloatCandidates(bits int) []quant.Format {
	var fs []quant.Format
	for e := 1; e <= bits-2; e++ {
		m := bits - 1 - e
		for _, special := range []string{"", ",overflow=saturate", ",special=none"} {
			for _, sub := range []string{"", ",subnormals=false"} {
				f, err := quant.Parse(fmt.Sprintf("float(%d,%d%s%s)", e, m, sub, special))
				if err == nil {
					fs = append(fs, f)
				}
			}
		}
	}
	return fs
}
