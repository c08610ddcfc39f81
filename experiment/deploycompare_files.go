package experiment

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/numfmt"
)

// WriteFiles writes the table to dir: deploy.md and deploy.csv (the
// table), search.csv (every candidate the search measured), fid.png (a
// chart of the table's FIDs), grids/<row>.png (each row's sample grid,
// from the same fixed noise) and grids.png (all of them, labelled). It
// returns the paths written.
//
// For an image map's table (Map set) it writes deploy.md, deploy.csv,
// search.csv and outputs/<row>/<input>.png, each row's outputs.
func (c *DeployTable) WriteFiles(dir string) ([]string, error) {
	if c.Map != "" {
		return c.writeMapFiles(dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, "grids"), 0o755); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var paths []string
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"deploy.md", c.WriteMarkdown}, {"deploy.csv", c.WriteCSV}, {"search.csv", c.WriteSearchCSV},
		{"fid.png", c.WriteChart}, {"grids.png", c.writeGrids},
	} {
		p := filepath.Join(dir, f.name)
		if err := atomicfile.Write(p, f.write); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	for _, r := range c.Rows {
		p := filepath.Join(dir, "grids", deploy.FileName(r.Label)+".png")
		if err := atomicfile.Write(p, func(w io.Writer) error { return png.Encode(w, c.grid1(r)) }); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// biasRange prints a row's biases as "lo…hi" (or one value), "–" if none.
func biasRange(b []int) string {
	if len(b) == 0 {
		return "–"
	}
	lo, hi := b[0], b[0]
	for _, k := range b {
		lo, hi = min(lo, k), max(hi, k)
	}
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return strconv.Itoa(lo) + "…" + strconv.Itoa(hi)
}

func biasList(b []int) string {
	s := make([]string, len(b))
	for i, k := range b {
		s[i] = strconv.Itoa(k)
	}
	return strings.Join(s, " ")
}

func fidString(x float64) string {
	if math.IsInf(x, 1) {
		return "∞"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func percent(x float64) string {
	if x == 0 {
		return "0"
	}
	return strconv.FormatFloat(100*x, 'g', 3, 64) + "%"
}

// WriteMarkdown writes the table as Markdown.
func (c *DeployTable) WriteMarkdown(w io.Writer) error {
	if c.Map != "" {
		return c.writeMapMarkdown(w)
	}
	var b bytes.Buffer
	fp32 := 0
	for _, r := range c.Rows {
		if r.Bits == 32 {
			fp32 = r.Bytes
		}
	}
	fmt.Fprintf(&b, "| %s | dot-product format | exponent biases (weights / activations) | %s, %d images | PSNR vs FP32 (dB) | `.pgmodel` bytes | × smaller | weights → 0 | weights saturated |\n",
		c.Arch, c.Metric, c.N)
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range c.Rows {
		format := "float32"
		if r.Format != "" {
			format = "`" + r.Format + "`"
		}
		if r.Tanh != "" {
			format += ", tanh `" + r.Tanh + "`"
		}
		biases := "–"
		if r.WeightBias != nil {
			biases = biasRange(r.WeightBias) + " / " + biasRange(r.ActBias)
		}
		fid := fidString(r.FID)
		if r.Note != "" {
			fid += " (" + r.Note + ")"
		}
		ratio := "1.00"
		if fp32 > 0 && r.Bytes > 0 {
			ratio = strconv.FormatFloat(float64(fp32)/float64(r.Bytes), 'f', 2, 64)
		}
		psnr := "–"
		if !math.IsInf(r.PSNR, 1) {
			psnr = strconv.FormatFloat(r.PSNR, 'f', 1, 64)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Label, format, biases, fid, psnr,
			thousands(r.Bytes), ratio, percent(r.Zero), percent(r.Saturated))
	}
	// The sweep tables test their rows over training seeds; here every
	// row is the one trained generator deployed otherwise, so there is
	// no sample to test, and the table says so rather than invent one.
	b.WriteString("\nOne generator per row and no seeds: no significance test against FP32 (positgan compare tests its rows over training seeds).\n")
	_, err := w.Write(b.Bytes())
	return err
}

// thousands formats n with commas.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// WriteCSV writes the table as CSV, one line per row; the biases are
// listed per layer in network order (DeployTable.Layers), space-separated.
// Figures are printed as every positgan CSV prints them (numfmt.Float).
func (c *DeployTable) WriteCSV(w io.Writer) error {
	if c.Map != "" {
		return c.writeMapCSV(w)
	}
	g := numfmt.Float
	lines := [][]string{{"model", "row", "bits", "format", "tanh", "weight_biases", "act_biases", "metric", "images", "fid", "note",
		"psnr_vs_fp32_db", "bytes", "weights_zero", "weights_saturated", "candidates", "policy"}}
	for _, r := range c.Rows {
		lines = append(lines, []string{c.Arch, r.Label, strconv.Itoa(r.Bits), r.Format, r.Tanh, biasList(r.WeightBias), biasList(r.ActBias),
			c.Metric, strconv.Itoa(c.N), g(r.FID), r.Note, g(r.PSNR), strconv.Itoa(r.Bytes), g(r.Zero), g(r.Saturated), strconv.Itoa(r.Candidates), r.Policy.Name})
	}
	cw := csv.NewWriter(w)
	cw.WriteAll(lines)
	return cw.Error()
}

// WriteSearchCSV writes every candidate the search measured.
func (c *DeployTable) WriteSearchCSV(w io.Writer) error {
	if c.Map != "" {
		return c.writeMapSearchCSV(w)
	}
	g := numfmt.Float
	lines := [][]string{{"model", "row", "format", "weight_bias_offset", "act_bias_offset", "metric", "images", "fid", "note", "seconds", "selected"}}
	for _, k := range c.Candidates {
		lines = append(lines, []string{c.Arch, k.Row, k.Format, strconv.Itoa(k.DW), strconv.Itoa(k.DA), c.Metric, strconv.Itoa(c.SearchN),
			g(k.FID), k.Note, strconv.FormatFloat(k.Seconds, 'f', 2, 64), strconv.FormatBool(k.Selected)})
	}
	cw := csv.NewWriter(w)
	cw.WriteAll(lines)
	return cw.Error()
}

// WriteChart writes a horizontal bar chart of the rows' FIDs as PNG; a
// row whose FID is not finite gets no bar and "(∞)" after its label.
func (c *DeployTable) WriteChart(w io.Writer) error {
	p := plot.New()
	p.Title.Text = c.Arch + ": deployed generator, " + c.Metric
	p.X.Label.Text = fmt.Sprintf("%s, %d images (lower is better)", c.Metric, c.N)
	n := len(c.Rows)
	vals := make(plotter.Values, n)
	names := make([]string, n)
	for i, r := range c.Rows {
		j := n - 1 - i // first row at the top
		names[j] = r.Label
		if math.IsInf(r.FID, 0) || math.IsNaN(r.FID) {
			names[j] += " (∞)"
			continue
		}
		vals[j] = r.FID
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return fmt.Errorf("experiment: deploy-compare: chart: %w", err)
	}
	bars.Horizontal = true
	bars.Color = color.Gray{Y: 150}
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalY(names...)
	p.X.Min = 0
	wt, err := p.WriterTo(6*vg.Inch, vg.Length(1+float64(0.28*float64(n)))*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("experiment: deploy-compare: chart: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// grid1 returns row r's sample grid.
func (c *DeployTable) grid1(r DeployRow) image.Image {
	return gan.Grid(r.Images[0], c.grid.spec.Image, c.grid.rows, c.grid.cols)
}

// writeGrids writes every row's grid, labelled with its FID, four to a
// line.
func (c *DeployTable) writeGrids(w io.Writer) error {
	if len(c.Rows) == 0 {
		return fmt.Errorf("experiment: deploy-compare: no rows")
	}
	tiles := make([]gan.Tile, len(c.Rows))
	for i, r := range c.Rows {
		tiles[i] = gan.Tile{Image: c.grid1(r), Label: r.Label + "  " + fidString(r.FID)}
	}
	m := gan.Montage{Cols: 4, Gap: 8, Band: 18, Baseline: 5}
	dst := image.NewRGBA(m.Bounds(tiles))
	m.Draw(dst, tiles)
	if c.grid.spec.Image.C == 1 {
		gray := image.NewGray(dst.Bounds())
		draw.Draw(gray, gray.Bounds(), dst, image.Point{}, draw.Src)
		return png.Encode(w, gray)
	}
	return png.Encode(w, dst)
}
