package gan

import (
	"fmt"
	"maps"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

// Role histograms of one layer, as measured in the last step.
type layerHists struct {
	weight, act, out scaling.Histogram
}

// measure returns the binade histograms of every quantized layer's
// weights and of its inputs and outputs in the last run of the first
// update in which the layer appears (for a GAN, the discriminator step:
// G on noise, D on real and fake images).
func (t *Trainer) measure() map[string]*layerHists {
	hs := map[string]*layerHists{}
	get := func(layer string) *layerHists {
		h, ok := hs[layer]
		if !ok {
			h = &layerHists{}
			hs[layer] = h
		}
		return h
	}
	for _, p := range t.nets.Params() {
		if p.Weight {
			get(p.Layer).weight.Add(p.Data())
		}
	}
	add := func(h *scaling.Histogram, n *gorgonia.Node) {
		if v := n.Value(); v != nil {
			if d, ok := v.Data().([]float32); ok {
				h.Add(d)
			}
		}
	}
	measured := map[string]bool{}
	for _, u := range t.gr.updates {
		seen := map[string]bool{}
		for _, tap := range u.taps {
			if measured[tap.Layer] {
				continue
			}
			seen[tap.Layer] = true
			h := get(tap.Layer)
			add(&h.act, tap.In)
			add(&h.out, tap.Out)
		}
		for l := range seen {
			measured[l] = true
		}
	}
	return hs
}

// chooseBiases returns, for each layer, the exponent biases (on top of
// the policy's) that put the bulk of its weights, activations and outputs
// in the most accurate binades of the policy's formats. Roles whose
// format is float32 or takes no bias keep 0.
func (t *Trainer) chooseBiases(hs map[string]*layerHists) (Biases, error) {
	b := Biases{}
	for layer, h := range hs {
		lf := t.opt.Policy.For(layer)
		var ks [3]int
		for i, r := range []struct {
			f quant.Format
			h scaling.Histogram
		}{{lf.Weight.Format, h.weight}, {lf.Act.Format, h.act}, {lf.Out.Format, h.out}} {
			if r.f == nil || r.h.Total() == 0 {
				continue
			}
			if _, err := quant.Scale(r.f, 0); err != nil {
				continue
			}
			k, err := scaling.ChooseBias(r.h, r.f)
			if err != nil {
				return nil, fmt.Errorf("layer %s: %w", layer, err)
			}
			ks[i] = k
		}
		if ks != [3]int{} {
			b[layer] = ks
		}
	}
	return b, nil
}

// reestimateBiases chooses new biases and, if they differ from the current
// ones, rebuilds the graphs with them. It reports whether they changed.
func (t *Trainer) reestimateBiases() (bool, error) {
	if !t.policyTakesBias() {
		return false, nil
	}
	b, err := t.chooseBiases(t.measure())
	if err != nil {
		return false, err
	}
	if maps.Equal(b, t.biases) {
		return false, nil
	}
	t.biases = b
	return true, t.rebuild()
}

// policyTakesBias reports whether any layer's weight, activation or
// output format takes an exponent bias.
func (t *Trainer) policyTakesBias() bool {
	for _, layer := range t.nets.Layers() {
		lf := t.opt.Policy.For(layer)
		for _, f := range []quant.Format{lf.Weight.Format, lf.Act.Format, lf.Out.Format} {
			if f != nil {
				if _, err := quant.Scale(f, 0); err == nil {
					return true
				}
			}
		}
	}
	return false
}

// rebuild builds the networks and their graphs again with the current
// formats and the current parameter values and buffers (the layers of
// nn fix their formats when built). Stochastic rounding restarts
// from streams seeded by the run's seed and the step.
func (t *Trainer) rebuild() error {
	seed := t.opt.Seed
	if t.step > 0 {
		seed = seedFor(t.opt.Seed, fmt.Sprintf("build at step %d", t.step))
	}
	n, err := build(t.model, t.formats, seed)
	if err != nil {
		return err
	}
	old, now := t.nets.Params(), n.Params()
	for i := range now {
		copy(now[i].Data(), old[i].Data())
		now[i].Changed()
	}
	oldB, nowB := t.nets.Buffers(), n.Buffers()
	for i := range nowB {
		copy(nowB[i].Data(), oldB[i].Data())
	}
	if err := copyMasks(t.nets, n); err != nil {
		return err
	}
	n.setMaskStep(t.opt.Seed, t.step)
	prev := t.nets
	t.nets = n
	gr, err := newGraphs(t)
	if err != nil {
		t.nets = prev
		return err
	}
	t.cacheWeights()
	t.gr = gr
	return nil
}

// stochastic reports whether any layer rounds stochastically, in its
// dot products or its Other role (the optimiser's roles derive their
// streams from the step and need no rebuild).
func (t *Trainer) stochastic() bool {
	for _, layer := range t.nets.Layers() {
		if t.formats(layer).DotRounding() == quant.Stochastic {
			return true
		}
	}
	for _, layer := range append(t.nets.others, LossLayer) {
		if o := t.formats(layer).Other; o.Format != nil && o.Rounding == quant.Stochastic {
			return true
		}
	}
	return false
}
