package policy_test

import (
	"slices"
	"testing"

	"github.com/positgan/positgan/policy"
)

func TestPolicyUnmatched(t *testing.T) {
	p, err := policy.Parse("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"G/out*:out=posit(16,1)", "D/fc?:weight=posit(6,1)", "G_AB/*:act=fp16"} {
		if err := p.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	layers := []string{"G/fc1", "G/fc2", "D/fc1", "D/embed"}
	if got, want := p.Unmatched(layers), []string{"G/out*", "G_AB/*"}; !slices.Equal(got, want) {
		t.Errorf("Unmatched = %q, want %q", got, want)
	}
	if got := (*policy.Policy)(nil).Unmatched(layers); got != nil {
		t.Errorf("nil policy: %q", got)
	}
}
