package models

import (
	"strings"
	"testing"
)

// TestConfigBounds: the checkpoint settings of issue 15 that made sample,
// eval fid and train --resume run out of memory are refused.
func TestConfigBounds(t *testing.T) {
	base := `{"arch":"cgan","z_dim":100,"classes":10,"channels":1,"height":28,"width":28,"features":128}`
	if _, err := ParseConfig(base); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{`"features":128`, `"features":2000000`, "features 2000000 exceeds"},
		{`"classes":10`, `"classes":1000000000`, "classes exceed"},
		{`"z_dim":100`, `"z_dim":3000000000`, "z size"},
		{`"height":28`, `"height":1000000`, "exceeds the limit"},
		{`"features":128`, `"features":1024,"channels":3,"height":1024,"width":1024`, "exceeds the limit"},
	} {
		_, err := ParseConfig(strings.Replace(base, tc.from, tc.to, 1))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.to, err, tc.want)
		}
	}
}
