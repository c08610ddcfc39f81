package models

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Describe names the model of c and its sizes in one line, as positgan
// import reports a model it read: "pytorch-dcgan: z 100, 3 channels,
// 64x64, width 64", the z size only for a model that has one, then each
// option as ", key value", sorted by key.
func (c Config) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", c.Arch)
	if c.ZDim > 0 {
		fmt.Fprintf(&b, "z %d, ", c.ZDim)
	}
	fmt.Fprintf(&b, "%d channels, %dx%d, width %d", c.Channels, c.Height, c.Width, c.Features)
	for _, k := range slices.Sorted(maps.Keys(c.Options)) {
		fmt.Fprintf(&b, ", %s %s", k, c.Options[k])
	}
	return b.String()
}
