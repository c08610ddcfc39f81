package featnet_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval/featnet"
)

// toyNet is a feature network of one feature: the mean pixel.
type toyNet struct{}

func (toyNet) Name() string { return "Toy" }
func (toyNet) Dim() int     { return 1 }
func (toyNet) Features(dst []float64, images []float32, s datasets.Shape) error {
	for i := range dst {
		var sum float64
		for _, v := range images[i*s.Size() : (i+1)*s.Size()] {
			sum += float64(v)
		}
		dst[i] = sum / float64(s.Size())
	}
	return nil
}

// A registered network is listed and opened by Load, by its name alone
// or, for one read from a file, as "name:FILE"; the other form of its
// spec is an unknown network, as a name never registered is.
func TestRegister(t *testing.T) {
	var opened []string
	open := func(file string) (featnet.Extractor, error) { opened = append(opened, file); return toyNet{}, nil }
	featnet.Register(featnet.Network{Name: "toy-test", Open: open})
	featnet.Register(featnet.Network{Name: "toyfile-test", File: true, Open: open})
	want := []string{"inception", "inception-clean", "lenet", "lenet-fashion", "lenet-mnist", "toy-test", "toyfile-test"}
	if got := featnet.Networks(); !slices.Equal(got, want) {
		t.Errorf("Networks() = %v, want %v", got, want)
	}
	for _, spec := range []string{"toy-test", "toyfile-test:w.bin"} {
		e, err := featnet.Load(spec)
		if err != nil || e.Name() != "Toy" || featnet.MetricName(e) != "FID (Toy)" {
			t.Errorf("Load(%q) = %v, %v", spec, e, err)
		}
	}
	if !slices.Equal(opened, []string{"", "w.bin"}) {
		t.Errorf("Open called with %q, want \"\" and \"w.bin\"", opened)
	}
	for _, spec := range []string{"toy-test:w.bin", "toyfile-test", "nosuch", "nosuch:w.bin", "lenet", "lenet-mnist:w.bin"} {
		if _, err := featnet.Load(spec); err == nil || !strings.Contains(err.Error(), `unknown feature network "`+spec+`"`) {
			t.Errorf("Load(%q): %v, want an unknown network", spec, err)
		}
	}
	for _, n := range []featnet.Network{
		{Name: "toy-test", Open: open}, // taken
		{Name: "bad:name", Open: open},
		{Name: "", Open: open},
		{Name: "no-open"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", n.Name)
				}
			}()
			featnet.Register(n)
		}()
	}
}
