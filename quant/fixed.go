package quant

// Fixed-point formats: to be written (parseFixed).

func parseFixed(args []string) (Format, error) {
	return nil, FormatError("fixed formats not implemented yet")
}
