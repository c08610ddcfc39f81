package models

import (
	"fmt"
	"strings"
)

// OptionsNote lists, for help texts, the option keys (Spec.Options) of
// every registered model that has some, in name order:
// "cyclegan: blocks, d_layers, ...; esrgan: blocks, ...".
func OptionsNote() string {
	var parts []string
	for _, n := range Names() {
		s, _ := Lookup(n)
		if len(s.Options) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", n, strings.Join(s.OptionNames(), ", ")))
		}
	}
	return strings.Join(parts, "; ")
}
