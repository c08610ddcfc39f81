//go:build arm64 && !purego

package quant

import "golang.org/x/sys/cpu"

func cpuLevel() Level {
	if cpu.ARM64.HasASIMD {
		return LevelNEON
	}
	return LevelGeneric
}

// The NEON kernels each dispatcher may call, set by useLevel.
var positNEON, floatNEON, blockNEON bool

// useLevel makes the dispatchers run the kernels of level l and below;
// l is at most cpuLevel().
func useLevel(l Level) {
	levelInUse = l
	positNEON, floatNEON, blockNEON = l == LevelNEON, l == LevelNEON, l == LevelNEON
}
