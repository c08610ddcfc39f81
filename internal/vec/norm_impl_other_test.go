//go:build !amd64 || purego

package vec

func normImpls() []normImpl { return []normImpl{normGoImpl, normDispatchImpl} }
