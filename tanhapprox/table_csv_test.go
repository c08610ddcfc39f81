package tanhapprox

import (
	"strings"
	"testing"
)

func TestWriteTableCSV(t *testing.T) {
	rows := []Row{{Fn: Tanh, Method: "exact", Codes: Stats{N: 3, Max: 0.5, Mean: 0.25, ArgMax: -1}, Grid: Stats{N: 2}, NS: 1.5}}
	var b strings.Builder
	if err := WriteTableCSV(&b, rows, "codes", "grid"); err != nil {
		t.Fatal(err)
	}
	want := "fn,method,inputs,n,max_err,mean_err,argmax,ns_per_elem\n" +
		"tanh,exact,codes,3,0.5,0.25,-1,1.500\n" +
		"tanh,exact,grid,2,0,0,0,1.500\n"
	if b.String() != want {
		t.Errorf("WriteTableCSV:\n%s\nwant\n%s", b.String(), want)
	}
}
