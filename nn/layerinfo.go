package nn

// LayerInfo describes a quantized layer (Linear, Conv2d or
// ConvTranspose2d built by a Scope): what an exporter needs to store it
// and a reader to run it again.
type LayerInfo struct {
	Name string // the policy name, e.g. "G/fc1"
	Kind string // "linear", "conv2d" or "convtranspose2d"
	// Formats are the layer's formats as built (exponent biases included).
	Formats LayerFormats
	In, Out int // features (linear) or channels
	// K, Stride, Pad, OutPad: the convolutions' geometry (0 for linear).
	K, Stride, Pad, OutPad int
	Bias                   bool
}

// Quantized reports whether m is a quantized layer built by a Scope and,
// if so, describes it. Walk finds the layers inside containers and
// Conditional.
func Quantized(m Module) (LayerInfo, bool) {
	q, ok := m.(*quantLayer)
	if !ok {
		return LayerInfo{}, false
	}
	li := LayerInfo{Name: q.name}
	switch {
	case q.lin != nil:
		l := q.lin
		li.Kind, li.Formats, li.In, li.Out, li.Bias = "linear", l.roles.f, l.In, l.Out, l.B != nil
	case q.conv != nil:
		c := q.conv
		li.Kind, li.Formats, li.In, li.Out, li.Bias = "conv2d", c.roles.f, c.InC, c.OutC, c.B != nil
		li.K, li.Stride, li.Pad = c.K, c.Stride, c.Pad
	default:
		c := q.tconv
		li.Kind, li.Formats, li.In, li.Out, li.Bias = "convtranspose2d", c.roles.f, c.InC, c.OutC, c.B != nil
		li.K, li.Stride, li.Pad, li.OutPad = c.K, c.Stride, c.Pad, c.OutPad
	}
	return li, true
}

// BatchNormOf returns the batch norm m is, if it is one built by a Scope,
// and its name ("G/bn2").
func BatchNormOf(m Module) (*BatchNorm, string, bool) {
	l, ok := unwrapOther(m).(*batchNormLayer)
	if !ok {
		return nil, "", false
	}
	return l.BatchNorm, l.name, true
}
