//go:build amd64 && !purego

package quant

import "golang.org/x/sys/cpu"

func cpuLevel() Level {
	x := cpu.X86
	switch {
	case x.HasAVX2 && x.HasFMA && x.HasAVX512F && x.HasPOPCNT:
		return LevelAVX512
	case x.HasAVX2 && x.HasFMA:
		return LevelAVX2
	}
	return LevelGeneric
}

// The vector kernels each dispatcher may call, set by useLevel.
var (
	positAVX2, positAVX512 bool
	floatAVX2, blockAVX2   bool
)

// useLevel makes the dispatchers run the kernels of level l and below;
// l is at most cpuLevel().
func useLevel(l Level) {
	levelInUse = l
	positAVX2, positAVX512 = l >= LevelAVX2, l >= LevelAVX512
	floatAVX2, blockAVX2 = l >= LevelAVX2, l >= LevelAVX2
}
