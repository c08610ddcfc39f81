package main

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/quant"
)

// plotHistogram writes the binade histogram of a format as a PNG bar chart.
func plotHistogram(path string, d quant.Description) error {
	if err := wantExt("plot", path, ".png"); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%v: positive values per binade", d.Format)
	p.X.Label.Text = "binade exponent e (values in [2^e, 2^(e+1)))"
	p.Y.Label.Text = "values"
	vals := make(plotter.Values, len(d.Binades))
	names := make([]string, len(d.Binades))
	step := max(1, len(d.Binades)/16)
	for i, b := range d.Binades {
		vals[i] = float64(b.Values)
		if i%step == 0 {
			names[i] = fmt.Sprint(b.Exp)
		}
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(max(2, 400/float64(len(vals)))))
	if err != nil {
		return err
	}
	p.Add(bars)
	p.NominalX(names...)
	wt, err := p.WriterTo(8*vg.Inch, 4*vg.Inch, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
