package gan

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/positgan/positgan/internal/atomicfile"
)

// maxPlotPoints bounds the points of each curve of a loss plot: longer
// logs are averaged over runs of consecutive steps.
const maxPlotPoints = 1000

// WriteLossPlot writes the log.csv at logPath (see ReadLog) as a PNG of
// stacked panels against the step: the losses (columns *_loss), the
// model's metrics (for GANs D(x) and D(G(z))), the loss scales
// (loss_scale_*, on a log axis) and the running count of skipped updates
// (skipped_*). Run writes it as losses.png beside log.csv.
func WriteLossPlot(path, logPath string) error {
	rows, err := ReadLog(logPath)
	if err != nil {
		return err
	}
	wt, err := lossPlot(rows, 8*vg.Inch, 10*vg.Inch)
	if err != nil {
		return fmt.Errorf("gan: loss plot: %w", err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}

// A lossPanel is one panel of the loss plot: the columns it draws.
type lossPanel struct {
	title, ylabel string
	cols          []string
	cumulative    bool // draw running sums (skipped updates)
	log           bool // log y axis (loss scales)
}

// lossPanels sorts the columns of a log into the panels that have some.
func lossPanels(names []string) []lossPanel {
	ps := []lossPanel{
		{title: "losses", ylabel: "loss"},
		{title: "metrics", ylabel: "value"},
		{title: "loss scales", ylabel: "scale", log: true},
		{title: "skipped updates (overflow)", ylabel: "count so far", cumulative: true},
	}
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, "_loss"):
			ps[0].cols = append(ps[0].cols, n)
		case strings.HasPrefix(n, "loss_scale_"):
			ps[2].cols = append(ps[2].cols, n)
		case strings.HasPrefix(n, "skipped_"):
			ps[3].cols = append(ps[3].cols, n)
		default:
			ps[1].cols = append(ps[1].cols, n)
		}
	}
	return slices.DeleteFunc(ps, func(p lossPanel) bool { return len(p.cols) == 0 })
}

// lossPlot draws the panels of rows on a w×h PNG canvas. The plotting
// library panics on some ranges it cannot draw; a log comes from a run
// and may hold any finite value, so such a panic is an error here.
func lossPlot(rows []LogRow, w, h vg.Length) (wt io.WriterTo, err error) {
	defer func() {
		if r := recover(); r != nil {
			wt, err = nil, fmt.Errorf("cannot draw these values: %v", r)
		}
	}()
	var names []string
	if len(rows) > 0 {
		for n := range rows[0].Values {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	panels := lossPanels(names)
	if len(panels) == 0 {
		panels = []lossPanel{{title: "no steps logged yet"}}
	}
	plots := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "step"
		p.Y.Label.Text = pn.ylabel
		p.Legend.Top = true
		for k, c := range pn.cols {
			l, err := plotter.NewLine(curve(rows, c, pn.cumulative))
			if err != nil {
				return nil, err
			}
			l.Color = plotColors[k%len(plotColors)]
			l.Width = vg.Points(1)
			p.Add(l)
			p.Legend.Add(c, l)
		}
		if len(rows) > 0 {
			p.Add(plotter.NewGrid())
		}
		if lo, hi, ok := positiveRange(rows, pn.cols); pn.log && ok {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
			// A constant scale gets a range too; the range stays finite
			// for scales near the largest float64.
			p.Y.Min, p.Y.Max = lo/2, hi*2
			if p.Y.Min == 0 { // lo is the least subnormal
				p.Y.Min = lo
			}
			if math.IsInf(p.Y.Max, 0) { // hi is near the largest float64
				p.Y.Max = hi
			}
			if p.Y.Min == p.Y.Max { // a constant scale at either end
				if hi > 1 {
					p.Y.Min = hi / 4
				} else {
					p.Y.Max = lo * 4
				}
			}
		}
		plots[i] = []*plot.Plot{p}
	}
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4),
		PadLeft: vg.Points(4), PadRight: vg.Points(8), PadY: vg.Points(8)}
	cs := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(cs[i][0])
	}
	return vgimg.PngCanvas{Canvas: img}, nil
}

var plotColors = []color.Color{
	color.RGBA{31, 119, 180, 255}, // matplotlib's first colours
	color.RGBA{255, 127, 14, 255},
	color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255},
	color.RGBA{148, 103, 189, 255},
}

// positiveRange returns the least and greatest value of the columns cols
// of rows, if there are values and all are positive and finite.
func positiveRange(rows []LogRow, cols []string) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), 0
	for _, r := range rows {
		for _, c := range cols {
			v := r.Values[c]
			if !(v > 0) || math.IsInf(v, 0) {
				return 0, 0, false
			}
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi, hi > 0
}

// curve returns column c of rows against the step (as running sums if
// cumulative), averaged over runs of consecutive rows so that it has at
// most maxPlotPoints points.
func curve(rows []LogRow, c string, cumulative bool) plotter.XYs {
	per := (len(rows) + maxPlotPoints - 1) / maxPlotPoints
	var xys plotter.XYs
	var sum float64
	for i := 0; i < len(rows); i += per {
		end := min(i+per, len(rows))
		var x, y, ys float64
		k := float64(end - i)
		for _, r := range rows[i:end] {
			v := r.Value(c)
			if cumulative {
				sum += v
				v = sum
			}
			x += float64(r.Step)
			y += v
			ys += v / k
		}
		y /= k
		if math.IsInf(y, 0) {
			// The sum overflowed: values near the largest float64 (a
			// loss scale of 1.7e308 is valid) need the mean of v/k.
			y = ys
		}
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			xys = append(xys, plotter.XY{X: x / k, Y: y})
		}
	}
	return xys
}
