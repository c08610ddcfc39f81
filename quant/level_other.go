//go:build !amd64 || purego

package quant

func cpuLevel() level { return levelGeneric }

func useLevel(level) {}
