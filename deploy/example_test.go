package deploy_test

import (
	"fmt"

	"github.com/positgan/positgan/deploy"
)

// The 4-bit formats the deployment table compares: the posit, and the
// floats the search tries (every split with a mantissa bit, each with IEEE
// Inf, saturating, or without specials, with and without subnormals, as
// far as the float grammar allows). The canonical names drop defaults, so
// float(2,1,special=none) prints as the preset fp4-e2m1.
func ExampleFloatCandidates() {
	fmt.Println(deploy.PositFor(4))
	for _, f := range deploy.FloatCandidates(4) {
		fmt.Println(f, f.Bits())
	}
	// Output:
	// posit(4,0)
	// float(1,2,special=none) 4
	// float(1,2,subnormals=false,special=none) 4
	// float(2,1) 4
	// float(2,1,subnormals=false) 4
	// float(2,1,overflow=saturate) 4
	// float(2,1,subnormals=false,overflow=saturate) 4
	// fp4-e2m1 4
	// float(2,1,subnormals=false,special=none) 4
}
