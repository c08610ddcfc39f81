package formatinfo

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/quant"
)

// WriteHistogramPlot writes the binade histogram of d's format, the
// positive values per binade, as a PNG bar chart to path.
func WriteHistogramPlot(path string, d quant.Description) error {
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
	return savePNG(path, p, 8*vg.Inch, 4*vg.Inch)
}

// WriteLatticePlot draws the Hasse diagram l as a PNG to path: formats by
// level from the bottom, spread evenly across each level, with a line for
// each covering pair.
func WriteLatticePlot(path string, l *quant.Lattice) error {
	levels := map[int][]int{}
	top := 0
	for i, lv := range l.Level {
		levels[lv] = append(levels[lv], i)
		top = max(top, lv)
	}
	pos := make(plotter.XYs, len(l.Formats))
	for lv, idx := range levels {
		for k, i := range idx {
			pos[i] = plotter.XY{X: float64(k+1) / float64(len(idx)+1), Y: float64(lv)}
		}
	}
	p := plot.New()
	p.Title.Text = "Formats ordered by containment of value sets"
	p.HideAxes()
	for _, e := range l.Edges {
		line, err := plotter.NewLine(plotter.XYs{pos[e[0]], pos[e[1]]})
		if err != nil {
			return err
		}
		line.Color = color.Gray{Y: 120}
		p.Add(line)
	}
	dots, err := plotter.NewScatter(pos)
	if err != nil {
		return err
	}
	p.Add(dots)
	labels := make([]string, len(l.Formats))
	for i, f := range l.Formats {
		labels[i] = f.String()
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pos, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].XAlign = -0.5 // centred on the node
		lb.Offset.Y = vg.Points(4)
	}
	p.Add(lb)
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = -0.5, float64(top)+0.5
	return savePNG(path, p, 8*vg.Inch, vg.Length(2+float64(top))*1.2*vg.Inch)
}

// savePNG writes p, w by h, as a PNG to path, whole or not at all.
func savePNG(path string, p *plot.Plot, w, h vg.Length) error {
	wt, err := p.WriterTo(w, h, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
