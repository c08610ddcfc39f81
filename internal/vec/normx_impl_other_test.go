//go:build !amd64 || purego

package vec

func normxAsmImpls() []normxImpl { return nil }
