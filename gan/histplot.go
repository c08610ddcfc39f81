package gan

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// Format returns the format in which pol rounds h's tensor (nil: float32,
// or a role Roles does not name).
func (h TensorHist) Format(pol *policy.Policy) quant.Format {
	lf := pol.For(h.Layer)
	switch h.Role {
	case "weight":
		return lf.Weight.Format
	case "act":
		return lf.Act.Format
	case "out":
		return lf.Out.Format
	case "err":
		return lf.Err.Format
	case "sum":
		if h.Promoted != nil {
			return h.Promoted
		}
		return pol.Promoted()[h.Layer]
	}
	return nil
}

// PlotHistograms writes to path a PNG plot of the fraction of values
// per binade of the tensors of hs in one role (see Roles), one line per
// layer, titled with title.
func PlotHistograms(path, role string, hs []TensorHist, title string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s values per binade", title, role)
	p.X.Label.Text = "binade e (|x| in [2^e, 2^(e+1)))"
	p.Y.Label.Text = "fraction of nonzero values"
	p.Legend.Top = true
	p.Legend.Left = true
	// Plot the binades that hold all but the smallest 0.1% of values.
	lo, hi := 1000, -1000
	for _, h := range hs {
		if h.Role == role && h.Hist.Total() > 0 {
			l, _ := h.Hist.Quantile(0.001)
			u, _ := h.Hist.Quantile(1)
			lo, hi = min(lo, l-1), max(hi, u+1)
		}
	}
	i := 0
	for _, h := range hs {
		if h.Role != role || h.Hist.Total() == 0 {
			continue
		}
		total := float64(h.Hist.Total())
		var xy plotter.XYs
		for e := lo; e <= hi; e++ {
			xy = append(xy, plotter.XY{X: float64(e), Y: float64(h.Hist.Counts[e]) / total})
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(h.Layer, l)
		i++
	}
	wt, err := p.WriterTo(9*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
