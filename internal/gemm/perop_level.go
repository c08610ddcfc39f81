package gemm

// perOpKernelAt is the row kernel PerOpWorkspace runs at level l: the
// last of perOpKernels at or below it. The package's level follows
// quant's (quant.CPUEnv caps it), so one setting lowers every kernel;
// every level gives the same bits.
func perOpKernelAt(l level) perOpRowKernel {
	ks := perOpKernels()
	fn := ks[0].fn
	for _, k := range ks {
		if k.level <= l {
			fn = k.fn
		}
	}
	return fn
}
