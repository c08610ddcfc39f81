package quant

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// Lookup-table rounding over 1M float32s, normal and wide inputs (see
// bench_test.go), for tables of 16, 256 and 65536 values: a random
// codebook (σ 1), the values of posit(8,1) as a table, and the values of
// fp16 (a 16-bit table). Codec is posit(8,1) derived by FromCodec.
//
// Run with: go test ./quant -run '^$' -bench Table -benchtime 20x -cpu 1
func BenchmarkTable(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 0))
	tables := map[string]Format{}
	for _, n := range []int{16, 256} {
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = rng.NormFloat64()
		}
		vs[n-1] = vs[n-1] * 0 / 0 // a NaN code
		f, err := NewTable(vs)
		if err != nil {
			b.Fatal(err)
		}
		tables["random"+strconv.Itoa(n)] = f
	}
	for _, name := range []string{"posit(8,1)", "fp16"} {
		f, err := NewTable(sortedValues(MustParse(name)))
		if err != nil {
			b.Fatal(err)
		}
		tables[name] = f
	}
	codec, err := FromCodec(codecOf{MustParse("posit(8,1)")})
	if err != nil {
		b.Fatal(err)
	}
	tables["codec-posit(8,1)"] = codec
	for _, in := range []struct {
		name string
		src  []float32
	}{{"normal", benchNormal()}, {"wide", benchWide()}} {
		for _, name := range []string{"random16", "random256", "posit(8,1)", "fp16", "codec-posit(8,1)"} {
			f := tables[name]
			b.Run(in.name+"/"+name, func(b *testing.B) { benchmarkRound(b, in.src, f.RoundSlice) })
		}
		b.Run(in.name+"/stochastic/posit(8,1)", func(b *testing.B) {
			f, rng := tables["posit(8,1)"], rand.NewPCG(3, 0)
			benchmarkRound(b, in.src, func(dst, src []float32) { f.RoundSliceStochastic(dst, src, rng) })
		})
	}
}
