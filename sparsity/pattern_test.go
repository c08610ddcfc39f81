package sparsity_test

import (
	"testing"

	"github.com/positgan/positgan/sparsity"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want sparsity.Pattern
		str  string
	}{
		{"2:4", sparsity.Pattern{N: 2, M: 4}, "2:4"},
		{" 1:2 ", sparsity.Pattern{N: 1, M: 2}, "1:2"},
		{"16:16", sparsity.Pattern{N: 16, M: 16}, "16:16"},
		{"1:16", sparsity.Pattern{N: 1, M: 16}, "1:16"},
		{"02:04", sparsity.Pattern{N: 2, M: 4}, "2:4"},
		{"dense", sparsity.Pattern{}, "dense"},
		{"", sparsity.Pattern{}, "dense"},
	} {
		p, err := sparsity.Parse(c.in)
		if err != nil || p != c.want || p.String() != c.str {
			t.Errorf("Parse(%q) = %v (%q), %v; want %v (%q)", c.in, p, p.String(), err, c.want, c.str)
		}
	}
	for _, bad := range []string{"0:4", "5:4", "1:17", "2:0", "2", "2:4:8", "-1:4", "+2:4", "2 :4", "a:b", "2:4x", "1000:1000", "Dense", ":", "2:"} {
		if p, err := sparsity.Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", bad, p)
		}
	}
}

func TestDensity(t *testing.T) {
	for _, c := range []struct {
		p     sparsity.Pattern
		d     float64
		dense bool
	}{{sparsity.Pattern{}, 1, true}, {sparsity.Pattern{N: 2, M: 4}, 0.5, false}, {sparsity.Pattern{N: 1, M: 8}, 0.125, false}, {sparsity.Pattern{N: 4, M: 4}, 1, true}} {
		if c.p.Density() != c.d || c.p.IsDense() != c.dense {
			t.Errorf("%v: density %g dense %v, want %g %v", c.p, c.p.Density(), c.p.IsDense(), c.d, c.dense)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"2:4", "dense", "", "16:16", "0:0", "1:17", "99999999999999999999:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := sparsity.Parse(s)
		if err != nil {
			if p != (sparsity.Pattern{}) {
				t.Fatalf("Parse(%q) returned %v with error %v", s, p, err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Parse(%q) = %v, which is invalid: %v", s, p, err)
		}
		q, err := sparsity.Parse(p.String())
		if err != nil || q != p {
			t.Fatalf("Parse(%q) = %v; Parse(%q) = %v, %v", s, p, p.String(), q, err)
		}
	})
}
