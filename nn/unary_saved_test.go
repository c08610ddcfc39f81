package nn

import (
	"math"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/internal/graphexec"
)

// TestActivationsWithoutGradient: an activation node whose gradient is
// never built keeps no copy for a backward pass (unarySaving) and
// computes straight into its output; its values must be those of a node
// with a gradient, bit for bit, in both element types, on inputs long
// enough to be split across the cores. LeakyReLU's are also checked
// against its definition.
func TestActivationsWithoutGradient(t *testing.T) {
	const n = 1<<16 + 3
	acts := []struct {
		name string
		f    func(*gorgonia.Node) (*gorgonia.Node, error)
	}{
		{"ReLU", ReLU},
		{"LeakyReLU", func(x *gorgonia.Node) (*gorgonia.Node, error) { return LeakyReLU(x, 0.2) }},
		{"Tanh", Tanh},
		{"Sigmoid", Sigmoid},
	}
	fill := func(i int) float64 { return 6 * math.Sin(float64(i)*0.37) }
	for _, a := range acts {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			forward := func(grad bool) *gorgonia.Node {
				g := gorgonia.NewGraph()
				x := gorgonia.NodeFromAny(g, newParam(dt, []int{n}, fill), gorgonia.WithName("x"))
				y, err := a.f(x)
				if err != nil {
					t.Fatal(err)
				}
				roots := []*gorgonia.Node{y}
				if grad {
					loss, err := gorgonia.Sum(y)
					if err != nil {
						t.Fatal(err)
					}
					gs, err := gorgonia.Grad(loss, x)
					if err != nil {
						t.Fatal(err)
					}
					roots = append(roots, loss, gs[0])
				}
				p, err := graphexec.Compile(roots...)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Run(); err != nil {
					t.Fatal(err)
				}
				return y
			}
			with, without := forward(true), forward(false)
			got, want := floatsOf(without.Value()), floatsOf(with.Value())
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s %v: value %d is %v without a gradient, %v with one", a.name, dt, i, got[i], want[i])
				}
			}
			if a.name != "LeakyReLU" {
				continue
			}
			for i, v := range got {
				x := fill(i)
				var def float64
				if dt == tensor.Float32 {
					x32 := float32(x)
					def = float64(x32)
					if x32 <= 0 {
						def = float64(x32 * float32(0.2))
					}
				} else if def = x; x <= 0 {
					def = x * 0.2
				}
				if v != def {
					t.Fatalf("%v: LeakyReLU(%v) = %v, want %v", dt, x, v, def)
				}
			}
		}
	}
}
