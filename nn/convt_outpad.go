package nn

// ConvTransposeOut returns a quantized transposed convolution whose output
// is outPad rows and columns larger than ConvTranspose's (PyTorch's
// output_padding; see NewConvTranspose2d): with kernel 3, stride 2,
// padding 1 and output padding 1 it exactly doubles the size, as the
// upsamplings of CycleGAN's ResNet generator do.
func (s *Scope) ConvTransposeOut(name string, in, out, k, stride, pad, outPad int, opts ...Option) Module {
	full := s.Name(name)
	c, err := NewConvTranspose2d(s.st.g, full, in, out, k, stride, pad, outPad, s.Formats(name), s.layerOpts(full, opts)...)
	if err != nil {
		s.Fail(err)
		return failed{}
	}
	return &quantLayer{name: full, tconv: c}
}
