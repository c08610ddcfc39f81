package deploy

import (
	"fmt"
	"slices"

	"github.com/positgan/positgan/nn"
)

// fold folds each batch norm of the generator into the quantized layer
// right before it, where that layer has a bias: with s = γ/√(σ²+ε) per
// output channel, the layer's weights become Weight(w·s) (rounded to its
// weight format) and its bias (b−μ)·s+β (float32), as nn.FoldBatchNorm
// folds; the batch norm is dropped. A batch norm after a layer without a
// bias (DCGAN's) is kept as float32. src holds the checkpoint's float32
// parameters by name.
func (m *Model) fold(net nn.Module, src map[string][]float32) error {
	par, ok := net.(nn.Parent)
	if !ok {
		return fmt.Errorf("deploy: folding batch norm: the generator is not a sequence of layers")
	}
	kids := par.Children()
	drop := map[string]bool{}
	for i, k := range kids {
		bn, name, ok := nn.BatchNormOf(k)
		if !ok || i == 0 {
			continue
		}
		var prev []nn.LayerInfo
		nn.Walk(kids[i-1], func(mod nn.Module) {
			if li, ok := nn.Quantized(mod); ok {
				prev = append(prev, li)
			}
		})
		if len(prev) != 1 || !prev[0].Bias || prev[0].Out != bn.C {
			continue
		}
		li := prev[0]
		gamma, beta := src[name+".gamma"], src[name+".beta"]
		mean, variance := m.Tensor(name+".running_mean").Values(), m.Tensor(name+".running_var").Values()
		w, b := m.Tensor(li.Name+".w"), m.Tensor(li.Name+".b")
		wv, bv := src[li.Name+".w"], src[li.Name+".b"]
		// The output channel of a weight: Linear (Out, In) and Conv2d
		// (Out, In, K, K) by the first axis, ConvTranspose2d (In, Out, K, K)
		// by the second.
		inner := len(wv) / w.Shape[0]
		if li.Kind == "convtranspose2d" {
			inner = li.K * li.K
		}
		fw, fb := make([]float32, len(wv)), make([]float32, len(bv))
		nn.FoldBatchNorm(fw, fb, wv, bv, inner, gamma, beta, mean, variance, bn.Eps)
		for i, x := range fw {
			if wv[i] == 0 && !w.Sparse.Dense() {
				x = 0 // not −0 (a negative s): a dropped weight stays code 0
			}
			w.Codes[i] = encode1(w.Format, x)
		}
		for c, x := range fb {
			b.Codes[c] = encode1(b.Format, x)
		}
		drop[name] = true
		m.Meta.Folded = append(m.Meta.Folded, name)
	}
	if len(m.Meta.Folded) > 0 { // a DCGAN's norms follow layers without bias: nothing folds
		m.Meta.BatchNorm = "folded"
	}
	m.Meta.Norms = slices.DeleteFunc(m.Meta.Norms, func(n Norm) bool { return drop[n.Name] })
	m.Tensors = slices.DeleteFunc(m.Tensors, func(t Tensor) bool {
		for _, suf := range []string{".gamma", ".beta", ".running_mean", ".running_var"} {
			if len(t.Name) > len(suf) && t.Name[len(t.Name)-len(suf):] == suf && drop[t.Name[:len(t.Name)-len(suf)]] {
				return true
			}
		}
		return false
	})
	return nil
}

// unfold returns net with the batch norms the file folded replaced by the
// identity.
func (m *Model) unfold(net nn.Module) (nn.Module, error) {
	if len(m.Meta.Folded) == 0 {
		return net, nil
	}
	par, ok := net.(nn.Parent)
	if !ok {
		return nil, fmt.Errorf("folded batch norms in a generator that is not a sequence of layers")
	}
	kids := slices.Clone(par.Children())
	found := 0
	for i, k := range kids {
		if _, name, ok := nn.BatchNormOf(k); ok && slices.Contains(m.Meta.Folded, name) {
			kids[i] = nn.Identity()
			found++
		}
	}
	if found != len(m.Meta.Folded) {
		return nil, fmt.Errorf("folded batch norms %v: the configuration builds %d of them", m.Meta.Folded, found)
	}
	return nn.Seq(kids...), nil
}
