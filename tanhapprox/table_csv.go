package tanhapprox

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/positgan/positgan/internal/numfmt"
)

// WriteTableCSV writes the rows of ErrorTable as CSV, two lines per row:
// its errors over the codes, described as codeSet, and over the grid,
// described as gridSet. The columns are fn, method, inputs, n, max_err,
// mean_err, argmax (shortest round-trip decimals) and ns_per_elem (empty
// when not timed).
func WriteTableCSV(w io.Writer, rows []Row, codeSet, gridSet string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "fn,method,inputs,n,max_err,mean_err,argmax,ns_per_elem")
	for _, r := range rows {
		ns := ""
		if r.NS > 0 {
			ns = strconv.FormatFloat(r.NS, 'f', 3, 64)
		}
		for _, s := range []struct {
			set string
			st  Stats
		}{{codeSet, r.Codes}, {gridSet, r.Grid}} {
			fmt.Fprintf(bw, "%v,%s,%s,%d,%s,%s,%s,%s\n", r.Fn, r.Method, s.set, s.st.N,
				numfmt.Float(s.st.Max), numfmt.Float(s.st.Mean), numfmt.Float(s.st.ArgMax), ns)
		}
	}
	return bw.Flush()
}
