//go:build (!amd64 && !arm64) || purego

package quant

func cpuLevel() Level { return LevelGeneric }

func useLevel(Level) {}
