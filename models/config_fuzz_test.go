package models

import (
	"strings"
	"testing"
)

// FuzzParseConfig: any string gives a checked Config or an error, never a
// panic; a Config that parses is within the bounds and its String parses
// back to the same Config.
func FuzzParseConfig(f *testing.F) {
	f.Add(`{"arch":"cgan","z_dim":100,"classes":10,"channels":1,"height":28,"width":28,"features":128}`)
	f.Add(`{"arch":"dcgan","z_dim":100,"classes":0,"channels":3,"height":64,"width":64,"features":64,"tanh":"pwl:3"}`)
	f.Add(`{"arch":"cgan","z_dim":3000000000,"classes":1000000000,"channels":1,"height":1000000,"width":28,"features":2000000}`)
	f.Add(`{"arch":"dcgan","options":{"blocks":"9"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		if c.Height > MaxSide || c.Width > MaxSide || c.Features > MaxFeatures || c.ZDim > MaxZDim || c.Classes > MaxClasses {
			t.Fatalf("config past the bounds accepted: %v", c)
		}
		c2, err := ParseConfig(c.String())
		if err != nil || c2.String() != c.String() {
			t.Fatalf("String does not round-trip: %v -> %v, %v", c, c2, err)
		}
	})
}
