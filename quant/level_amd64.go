//go:build amd64 && !purego

package quant

import "golang.org/x/sys/cpu"

func cpuLevel() level {
	x := cpu.X86
	switch {
	case x.HasAVX2 && x.HasFMA && x.HasAVX512F && x.HasPOPCNT:
		return levelAVX512
	case x.HasAVX2 && x.HasFMA:
		return levelAVX2
	}
	return levelGeneric
}

// The vector kernels each dispatcher may call, set by useLevel.
var (
	positAVX2, positAVX512 bool
	floatAVX2, blockAVX2   bool
)

// useLevel makes the dispatchers run the kernels of level l and below;
// l is at most cpuLevel().
func useLevel(l level) {
	levelInUse = l
	positAVX2, positAVX512 = l >= levelAVX2, l >= levelAVX512
	floatAVX2, blockAVX2 = l >= levelAVX2, l >= levelAVX2
}
