package quant

// Float formats: to be written (floatPreset, parseFloat).

func floatPreset(name string) (Format, bool) { return nil, false }

func parseFloat(head string, args []string) (Format, error) {
	return nil, FormatError("float formats not implemented yet")
}
