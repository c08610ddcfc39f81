package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// RelativisticLoss returns the relativistic average GAN loss of Jolicoeur-
// Martineau (ICLR 2019) as ESRGAN uses it (Wang et al., ECCV 2018
// workshops; BasicSR's esrgan_model.py), from the discriminator's logits
// on real images (real) and generated ones (fake):
//
//	½·mean_i softplus(-s·(real_i - mean(fake))) + ½·mean_j softplus(s·(fake_j - mean(real)))
//
// that is the mean of the binary cross-entropies of real_i - mean(fake)
// against target "real" and fake_j - mean(real) against "fake" for the
// discriminator (sign s = +1), and with the targets swapped for the
// generator (s = -1). The means and sums are taken in float64. The
// gradient passed back is multiplied by *gradScale (loss scaling), read at
// every run; nil means 1. Both inputs get gradients: each one's includes
// the term that flows through the other's mean.
func RelativisticLoss(real, fake *gorgonia.Node, sign float64, gradScale *float64) (*gorgonia.Node, error) {
	if sign != 1 && sign != -1 {
		return nil, fmt.Errorf("nn: relativistic loss: sign %v, want ±1", sign)
	}
	rs, fs := real.Shape().Clone(), fake.Shape().Clone()
	if rs.TotalSize() == 0 || fs.TotalSize() == 0 {
		return nil, fmt.Errorf("nn: relativistic loss: empty input (%v, %v)", rs, fs)
	}
	name := fmt.Sprintf("RelativisticLoss(%v, %v, %v, %p)", rs, fs, sign, gradScale)
	var fwd outBuf
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{rs, fs}, Out: tensor.ScalarShape(), Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			var v float64
			if isF64(in[0]) {
				v = raLoss(data[float64](in[0]), data[float64](in[1]), sign)
			} else {
				v = raLoss(data[float32](in[0]), data[float32](in[1]), sign)
			}
			return scalarOut(&fwd, in[0].Dtype(), v), nil
		}},
		WRT: []bool{true, true},
	}
	op.Grad = func(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		res := make(gorgonia.Nodes, 2)
		for i, sh := range []tensor.Shape{rs, fs} {
			deps := gorgonia.Nodes{inputs[0], inputs[1], grad}
			d, err := kernelNode(fmt.Sprintf("%s.d%d", name, i), sh, deps, func(out *tensor.Dense, in []*tensor.Dense) {
				k := 1.0
				if gradScale != nil {
					k = *gradScale
				}
				if isF64(out) {
					k *= scalarOf[float64](in[2])
					raGrad(data[float64](out), data[float64](in[0]), data[float64](in[1]), sign, k, i == 1)
				} else {
					k *= float64(scalarOf[float32](in[2]))
					raGrad(data[float32](out), data[float32](in[0]), data[float32](in[1]), sign, k, i == 1)
				}
			})
			if err != nil {
				return nil, err
			}
			res[i] = d
		}
		return res, nil
	}
	return apply(newLossOp(op), real, fake)
}

func meanF[T float32 | float64](x []T) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s / float64(len(x))
}

// raLoss is the value of RelativisticLoss.
func raLoss[T float32 | float64](r, f []T, s float64) float64 {
	mr, mf := meanF(r), meanF(f)
	var a, b float64
	for _, v := range r {
		a += softplus(-s * (float64(v) - mf))
	}
	for _, v := range f {
		b += softplus(s * (float64(v) - mr))
	}
	return 0.5*a/float64(len(r)) + 0.5*b/float64(len(f))
}

// raGrad writes k times the gradient of raLoss with respect to r (or to f
// if ofFake). With a_i = r_i - mean f, b_j = f_j - mean r,
// ga_i = -s·σ(-s·a_i)/(2n) and gb_j = s·σ(s·b_j)/(2m):
// ∂/∂r_k = ga_k - Σ_j gb_j / n and ∂/∂f_k = gb_k - Σ_i ga_i / m.
func raGrad[T float32 | float64](dst, r, f []T, s, k float64, ofFake bool) {
	mr, mf := meanF(r), meanF(f)
	n, m := float64(len(r)), float64(len(f))
	ga := func(v T) float64 { return -s * sigmoid(-s*(float64(v)-mf)) / (2 * n) }
	gb := func(v T) float64 { return s * sigmoid(s*(float64(v)-mr)) / (2 * m) }
	if !ofFake {
		var sb float64
		for _, v := range f {
			sb += gb(v)
		}
		for i, v := range r {
			dst[i] = T(k * (ga(v) - sb/n))
		}
		return
	}
	var sa float64
	for _, v := range r {
		sa += ga(v)
	}
	for j, v := range f {
		dst[j] = T(k * (gb(v) - sa/m))
	}
}

// Gate returns the scalar loss x times *w, read at every run: a term whose
// weight changes during training (ESRGAN's adversarial term, 0 during the
// PSNR-oriented pre-training). The gradient passed back is the incoming
// one times *w. w must not be nil.
func Gate(x *gorgonia.Node, w *float64) (*gorgonia.Node, error) {
	if w == nil {
		return nil, fmt.Errorf("nn: gate: nil weight")
	}
	if x.Shape().TotalSize() != 1 {
		return nil, fmt.Errorf("nn: gate: input shape %v, want a scalar", x.Shape())
	}
	xs := x.Shape().Clone()
	name := fmt.Sprintf("Gate(%v, %p)", xs, w)
	var fwd outBuf
	op := &diffOp{
		Func: funcOp{Name: name, In: []tensor.Shape{xs}, Out: tensor.ScalarShape(), Fn: func(in []*tensor.Dense) (*tensor.Dense, error) {
			var v float64
			if isF64(in[0]) {
				v = scalarOf[float64](in[0])
			} else {
				v = float64(scalarOf[float32](in[0]))
			}
			if *w == 0 {
				v = 0 // not NaN for an infinite term that is switched off
			} else {
				v *= *w
			}
			return scalarOut(&fwd, in[0].Dtype(), v), nil
		}},
		WRT: []bool{true},
	}
	op.Grad = func(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
		d, err := kernelNode(name+".d", xs, []*gorgonia.Node{grad}, func(out *tensor.Dense, in []*tensor.Dense) {
			if isF64(out) {
				out.Set(0, *w*scalarOf[float64](in[0]))
			} else {
				out.Set(0, float32(*w*float64(scalarOf[float32](in[0]))))
			}
		})
		if err != nil {
			return nil, err
		}
		return gorgonia.Nodes{d}, nil
	}
	return apply(newLossOp(op), x)
}
