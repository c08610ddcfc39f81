package experiment

// The deployment table of generators that map images to images
// (CycleGAN, ESRGAN; trained or imported): FID does not apply, so each
// row is judged, as Ho et al. judge their CycleGAN and ESRGAN
// deployments, by the PSNR and SSIM of its outputs against the float32
// generator's on the user's images, and for super-resolution by Y-PSNR
// against ground truth.

import (
	"encoding/csv"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/graphexec"
	"github.com/positgan/positgan/internal/numfmt"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
)

// mapJudge is what the rows of an image map's table are measured on: the
// input images, the float32 generator's outputs and the ground truth.
type mapJudge struct {
	group  string // the generator's parameter group
	scale  int
	c      int           // channels of the inputs and outputs
	names  []string      // the inputs' file names without extension
	inputs [][]float32   // (1, 3, h, w) in [-1, 1], as translate and upscale feed them
	sizes  [][2]int      // h, w of each input
	ref    []image.Image // the FP32 row's outputs, rounded to 8 bits
	hr     []image.Image // ground truth of each output, or nil
	search int           // the inputs the search measures: the first search
}

// mapOutput is one row's outputs on the inputs.
type mapOutput struct {
	images []image.Image
	bad    int // non-finite output values
}

// pickMap returns the map of maps called name, or for "" the first that
// enlarges (super-resolution), else the first.
func pickMap(maps []models.ImageMap, name string) (models.ImageMap, error) {
	var names []string
	for _, m := range maps {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	if name != "" {
		return models.ImageMap{}, &DeployOptionError{Option: "Map", Err: fmt.Errorf("%q: the generator maps images by %s", name, strings.Join(names, ", "))}
	}
	for _, m := range maps {
		if m.Scale > 1 {
			return m, nil
		}
	}
	return maps[0], nil
}

// loadMapInputs reads the inputs of o.In. A map that translates (scale
// 1) takes the images of a folder as positgan translate does, resized to
// the model's image shape sh (datasets.LoadImages); one that enlarges by
// k takes RGB images of any size as positgan upscale does, from a folder
// or one file, and the same-named images of o.HR, each k times the size
// of its input.
func loadMapInputs(o DeployOptions, im models.ImageMap, sh datasets.Shape) (*mapJudge, error) {
	files, isDir, err := eval.ImageFiles(o.In)
	if err != nil {
		return nil, &DeployOptionError{Option: "In", Err: err}
	}
	if isDir && len(files) == 0 {
		return nil, &DeployOptionError{Option: "In", Err: fmt.Errorf("no images in %s", o.In)}
	}
	j := &mapJudge{group: im.Group, scale: im.Scale, c: 3}
	if im.Scale == 1 {
		if o.HR != "" {
			return nil, &DeployOptionError{Option: "HR", Err: fmt.Errorf("%s: ground truth is for super-resolution; the generator's map %s does not enlarge", o.HR, im.Name)}
		}
		if !isDir {
			return nil, &DeployOptionError{Option: "In", Err: fmt.Errorf("%s: want a folder of images to translate", o.In)}
		}
		ds, names, err := datasets.LoadImages(o.In, datasets.Options{Height: sh.H, Width: sh.W, Channels: sh.C})
		if err != nil {
			return nil, err
		}
		j.c = sh.C
		for i := range ds.Len() {
			x := make([]float32, sh.Size())
			ds.Image(x, i)
			j.names, j.inputs, j.sizes = append(j.names, baseName(names[i])), append(j.inputs, x), append(j.sizes, [2]int{sh.H, sh.W})
		}
		j.search = min(len(j.inputs), o.SearchN)
		return j, nil
	}
	var hr map[string]string // base name -> file
	if o.HR != "" {
		hrFiles, _, err := eval.ImageFiles(o.HR)
		if err != nil {
			return nil, &DeployOptionError{Option: "HR", Err: err}
		}
		hr = map[string]string{}
		for _, f := range hrFiles {
			hr[baseName(f)] = f
		}
	}
	for _, f := range files {
		img, err := datasets.OpenImage(f)
		if err != nil {
			return nil, err
		}
		p, h, w := datasets.Planes(img)
		x := make([]float32, len(p))
		for i, v := range p {
			x[i] = float32(v/127.5 - 1)
		}
		name := baseName(f)
		if slices.Contains(j.names, name) {
			return nil, &DeployOptionError{Option: "In", Err: fmt.Errorf("%s: two images named %s: their outputs would share a file", o.In, name)}
		}
		j.names, j.inputs, j.sizes = append(j.names, name), append(j.inputs, x), append(j.sizes, [2]int{h, w})
		if hr == nil {
			continue
		}
		hf, ok := hr[name]
		if !ok {
			return nil, &DeployOptionError{Option: "HR", Err: fmt.Errorf("%s: no ground truth named %s for %s", o.HR, name, f)}
		}
		t, err := datasets.OpenImage(hf)
		if err != nil {
			return nil, err
		}
		if b := t.Bounds(); b.Dx() != w*im.Scale || b.Dy() != h*im.Scale {
			return nil, &DeployOptionError{Option: "HR", Err: fmt.Errorf("%s is %dx%d, want %dx%d: %d times %s (%dx%d)",
				hf, b.Dx(), b.Dy(), w*im.Scale, h*im.Scale, im.Scale, f, w, h)}
		}
		j.hr = append(j.hr, t)
	}
	j.search = min(len(j.inputs), o.SearchN)
	return j, nil
}

func baseName(f string) string { return strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)) }

// mapRunner runs one generator on inputs of one size, keeping the taps
// of its quantized layers.
type mapRunner struct {
	h, w int
	in   []float32
	out  *gorgonia.Node
	taps []nn.Tap
	prog *graphexec.Program
}

func newMapRunner(nets *gan.Nets, group string, c, h, w, scale int) (r *mapRunner, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("experiment: deploy-compare: building the graph of %s for %dx%d images: %v", group, w, h, p)
		}
	}()
	net := nets.Net(group)
	if net == nil {
		return nil, fmt.Errorf("experiment: deploy-compare: the model has no network %q", group)
	}
	g := gorgonia.NewGraph()
	t := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1, c, h, w))
	x := gorgonia.NodeFromAny(g, t, gorgonia.WithName("x"))
	m := net.Share(g)
	nn.SetTraining(m, nets.BatchStats)
	p := &nn.Pass{FreezeStats: true}
	r = &mapRunner{h: h, w: w, in: t.Data().([]float32)}
	if r.out, err = m.Forward(p, x); err != nil {
		return nil, fmt.Errorf("experiment: deploy-compare: %s on %dx%d images: %w", group, w, h, err)
	}
	if sh := r.out.Shape(); len(sh) != 4 || sh[1] != c || sh[2] != h*scale || sh[3] != w*scale {
		return nil, fmt.Errorf("experiment: deploy-compare: %s makes %v outputs of %dx%d inputs, want (1, %d, %d, %d)",
			group, sh, w, h, c, h*scale, w*scale)
	}
	r.taps = p.Taps
	if r.prog, err = graphexec.Compile(r.out); err != nil {
		return nil, fmt.Errorf("experiment: deploy-compare: %w", err)
	}
	return r, nil
}

// runMap runs the generator of nets on the first n inputs of j and
// returns the outputs as 8-bit images; taps, if not nil, sees each run's
// taps.
func (j *mapJudge) runMap(nets *gan.Nets, n int, taps func([]nn.Tap)) (mapOutput, error) {
	var o mapOutput
	var r *mapRunner
	for i, x := range j.inputs[:n] {
		h, w := j.sizes[i][0], j.sizes[i][1]
		if r == nil || r.h != h || r.w != w {
			var err error
			if r, err = newMapRunner(nets, j.group, j.c, h, w, j.scale); err != nil {
				return o, fmt.Errorf("%s: %w", j.names[i], err)
			}
		}
		copy(r.in, x)
		if err := r.prog.Run(); err != nil {
			return o, fmt.Errorf("experiment: deploy-compare: %s: %w", j.names[i], err)
		}
		if taps != nil {
			taps(r.taps)
		}
		y := r.out.Value().Data().([]float32)
		for _, v := range y {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				o.bad++
			}
		}
		o.images = append(o.images, j.image(y, h*j.scale, w*j.scale))
	}
	return o, nil
}

// image rounds an output y of h×w pixels to 8 bits as positgan
// translate (ImageOf) and upscale (models.Upscaler.Image) write it.
func (j *mapJudge) image(y []float32, h, w int) image.Image {
	if j.scale == 1 {
		return ImageOf(y, datasets.Shape{C: j.c, H: h, W: w})
	}
	pix := make([]float64, len(y))
	for k, v := range y {
		pix[k] = (float64(v) + 1) * 127.5
	}
	return datasets.FromPlanes(pix, h, w)
}

// mapScores are a row's figures: the means over the images of PSNR (dB)
// and SSIM against the FP32 row's 8-bit outputs, and of Y-PSNR against
// the ground truth (NaN without it).
type mapScores struct{ psnr, ssim, ypsnr float64 }

func (j *mapJudge) score(o mapOutput, withHR bool) (mapScores, error) {
	s := mapScores{ypsnr: math.NaN()}
	n := float64(len(o.images))
	for i, img := range o.images {
		p, err := eval.ImagePSNR(img, j.ref[i], 255)
		if err != nil {
			return s, fmt.Errorf("experiment: deploy-compare: %s: %w", j.names[i], err)
		}
		q, err := eval.ImageSSIM(img, j.ref[i])
		if err != nil {
			return s, fmt.Errorf("experiment: deploy-compare: %s: %w", j.names[i], err)
		}
		s.psnr += p / n
		s.ssim += q / n
	}
	if withHR && j.hr != nil {
		s.ypsnr = 0
		for i, img := range o.images {
			sc, err := models.ScoreSR(img, j.hr[i], j.scale)
			if err != nil {
				return s, fmt.Errorf("experiment: deploy-compare: %s: %w", j.names[i], err)
			}
			s.ypsnr += sc.YPSNR / n
		}
	}
	return s, nil
}

// deployCompareMap is DeployCompare for a generator that maps images
// (c's model is an models.ImageMapper), judged on the images of o.In.
func deployCompareMap(cm *comparer, cfg models.Config, maps []models.ImageMap, start time.Time) (*DeployTable, error) {
	o := cm.o
	im, err := pickMap(maps, o.Map)
	if err != nil {
		return nil, err
	}
	j, err := loadMapInputs(o, im, datasets.Shape{C: cfg.Channels, H: cfg.Height, W: cfg.Width})
	if err != nil {
		return nil, err
	}
	cm.judge = j
	metric := "PSNR vs FP32"
	cm.out = &DeployTable{Arch: cfg.Arch, Metric: metric, N: len(j.inputs), SearchN: j.search, Seed: o.Seed,
		Map: im.Name, Scale: im.Scale, HR: j.hr != nil, Inputs: j.names}
	fp32, err := policy.Parse("fp32")
	if err != nil {
		return nil, err
	}
	nets, _, err := models.Load(cm.c, fp32)
	if err != nil {
		return nil, err
	}
	net := nets.Net(im.Group)
	if net == nil {
		return nil, fmt.Errorf("experiment: deploy-compare: the model has no network %q", im.Group)
	}
	nn.Walk(net, func(m nn.Module) {
		if li, ok := nn.Quantized(m); ok {
			cm.layers = append(cm.layers, li.Name)
		}
	})
	for _, p := range net.Params() {
		if p.Weight {
			cm.weights[p.Layer] = p.Data()
			cm.wh[p.Layer] = scaling.Log2Histogram(p.Data())
		}
	}
	cm.out.Layers = cm.layers
	// The activations' histograms come from the search's inputs, as the
	// FID table's come from its SearchN evaluation images.
	if _, err := j.runMap(nets, j.search, func(taps []nn.Tap) {
		for _, tp := range taps {
			h := cm.ah[tp.Layer]
			h.Add(tp.In.Value().Data().([]float32))
			cm.ah[tp.Layer] = h
		}
	}); err != nil {
		return nil, err
	}
	ref, err := j.runMap(nets, len(j.inputs), nil)
	if err != nil {
		return nil, err
	}
	if ref.bad > 0 {
		return nil, fmt.Errorf("experiment: deploy-compare: the float32 generator made %d non-finite values: nothing to compare against", ref.bad)
	}
	j.ref = ref.images
	if err := cm.rows(); err != nil {
		return nil, err
	}
	cm.out.Seconds = time.Since(start).Seconds()
	return cm.out, nil
}

// mapLoss runs the generator under p on the search's inputs and returns
// the loss the search minimises: minus the mean PSNR against FP32
// (+Inf, with a note, if an output is not finite).
func (cm *comparer) mapLoss(p *policy.Policy) (float64, string, error) {
	if err := cm.ctx.Err(); err != nil {
		return 0, "", err
	}
	nets, _, err := models.Load(cm.c, p)
	if err != nil {
		return 0, "", err
	}
	out, err := cm.judge.runMap(nets, cm.judge.search, nil)
	if err != nil {
		return 0, "", err
	}
	if out.bad > 0 {
		return math.Inf(1), fmt.Sprintf("%d non-finite values", out.bad), nil
	}
	s, err := cm.judge.score(out, false)
	if err != nil {
		return 0, "", err
	}
	return -s.psnr, "", nil
}

// mapRow measures one row of an image map's table on every input.
func (cm *comparer) mapRow(label string, bits int, f quant.Format, bias *[2][]int, tried int) error {
	p, err := cm.policy(label, f, bias, "")
	if err != nil {
		return err
	}
	if err := cm.ctx.Err(); err != nil {
		return err
	}
	t0 := time.Now()
	nets, _, err := models.Load(cm.c, p)
	if err != nil {
		return fmt.Errorf("experiment: deploy-compare: %s: %w", label, err)
	}
	out, err := cm.judge.runMap(nets, len(cm.judge.inputs), nil)
	if err != nil {
		return fmt.Errorf("experiment: deploy-compare: %s: %w", label, err)
	}
	r := DeployRow{Label: label, Bits: bits, Policy: p, Candidates: tried, FID: math.NaN(),
		PSNR: math.NaN(), SSIM: math.NaN(), YPSNR: math.NaN(), Outputs: out.images}
	if out.bad > 0 {
		r.Note = fmt.Sprintf("%d non-finite values", out.bad)
	} else {
		s, err := cm.judge.score(out, true)
		if err != nil {
			return err
		}
		r.PSNR, r.SSIM, r.YPSNR = s.psnr, s.ssim, s.ypsnr
	}
	if f != nil {
		r.Format = f.String()
		if bias != nil {
			r.WeightBias, r.ActBias = append([]int(nil), bias[0]...), append([]int(nil), bias[1]...)
		}
		r.Zero, r.Saturated = cm.weightFractions(p)
	}
	cm.out.Rows = append(cm.out.Rows, r)
	fmt.Fprintf(cm.o.Log, "%s %s: PSNR %.2f dB, SSIM %.4f against FP32 on %d images (%s)%s\n",
		cm.out.Arch, label, r.PSNR, r.SSIM, len(out.images), time.Since(t0).Round(time.Millisecond), noteSuffix(r.Note))
	return nil
}

// mapOptionsOf checks that o's image-map fields fit the checkpoint's
// model: In for a model that maps images, none of them otherwise. It
// returns the model's configuration and maps (nil maps: FID table).
func mapOptionsOf(c *ckpt.Checkpoint, o DeployOptions) (models.Config, []models.ImageMap, error) {
	cfg, err := models.ConfigOf(c)
	if err != nil {
		return cfg, nil, err
	}
	maps, err := models.MapsOf(cfg)
	if err != nil {
		return cfg, nil, err
	}
	switch {
	case maps == nil && (o.In != "" || o.HR != "" || o.Map != ""):
		return cfg, nil, &DeployOptionError{Option: "In", Err: fmt.Errorf("model %s makes images from noise: it is judged by FID, not on images of a folder", cfg.Arch)}
	case maps != nil && o.In == "":
		return cfg, nil, &DeployOptionError{Option: "In", Err: fmt.Errorf("model %s maps images to images: FID does not apply; give a folder of input images to judge its rows on", cfg.Arch)}
	}
	return cfg, maps, nil
}

// writeMapOutputs writes every row's outputs to dir/<row>/<name>.png and
// returns the paths written.
func (c *DeployTable) writeMapOutputs(dir string) ([]string, error) {
	var paths []string
	for _, r := range c.Rows {
		d := filepath.Join(dir, deploy.FileName(r.Label))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return paths, fmt.Errorf("experiment: %w", err)
		}
		for i, img := range r.Outputs {
			p := filepath.Join(d, c.Inputs[i]+".png")
			if err := writePNG(p, img); err != nil {
				return paths, err
			}
			paths = append(paths, p)
		}
	}
	return paths, nil
}

var errNoRows = errors.New("experiment: deploy-compare: no rows")

func writePNG(path string, img image.Image) error {
	return atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// writeMapFiles is WriteFiles for an image map's table: deploy.md,
// deploy.csv, search.csv and outputs/<row>/<input>.png.
func (c *DeployTable) writeMapFiles(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var paths []string
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"deploy.md", c.WriteMarkdown}, {"deploy.csv", c.WriteCSV}, {"search.csv", c.WriteSearchCSV},
	} {
		p := filepath.Join(dir, f.name)
		if err := atomicfile.Write(p, f.write); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	more, err := c.writeMapOutputs(filepath.Join(dir, "outputs"))
	return append(paths, more...), err
}

// writeMapCSV is WriteCSV for an image map's table.
func (c *DeployTable) writeMapCSV(w io.Writer) error {
	g := numfmt.Float
	lines := [][]string{{"model", "map", "row", "bits", "format", "weight_biases", "act_biases", "images",
		"psnr_vs_fp32_db", "ssim_vs_fp32", "ypsnr_vs_hr_db", "note", "weights_zero", "weights_saturated", "candidates", "policy"}}
	for _, r := range c.Rows {
		lines = append(lines, []string{c.Arch, c.Map, r.Label, strconv.Itoa(r.Bits), r.Format, biasList(r.WeightBias), biasList(r.ActBias),
			strconv.Itoa(c.N), g(r.PSNR), g(r.SSIM), g(r.YPSNR), r.Note, g(r.Zero), g(r.Saturated), strconv.Itoa(r.Candidates), r.Policy.Name})
	}
	cw := csv.NewWriter(w)
	cw.WriteAll(lines)
	return cw.Error()
}

// writeMapSearchCSV is WriteSearchCSV for an image map's table.
func (c *DeployTable) writeMapSearchCSV(w io.Writer) error {
	g := numfmt.Float
	lines := [][]string{{"model", "map", "row", "format", "weight_bias_offset", "act_bias_offset", "images", "psnr_vs_fp32_db", "note", "seconds", "selected"}}
	for _, k := range c.Candidates {
		lines = append(lines, []string{c.Arch, c.Map, k.Row, k.Format, strconv.Itoa(k.DW), strconv.Itoa(k.DA), strconv.Itoa(c.SearchN),
			g(k.PSNR), k.Note, strconv.FormatFloat(k.Seconds, 'f', 2, 64), strconv.FormatBool(k.Selected)})
	}
	cw := csv.NewWriter(w)
	cw.WriteAll(lines)
	return cw.Error()
}

// writeMapMarkdown writes an image map's table as Markdown.
func (c *DeployTable) writeMapMarkdown(w io.Writer) error {
	if len(c.Rows) == 0 {
		return errNoRows
	}
	var b strings.Builder
	hr := ""
	if c.HR {
		hr = fmt.Sprintf(" Y-PSNR vs HR (dB, shave %d) |", c.Scale)
	}
	fmt.Fprintf(&b, "| %s %s | dot-product format | exponent biases (weights / activations) | PSNR vs FP32 (dB), %d images | SSIM vs FP32 |%s weights → 0 | weights saturated |\n",
		c.Arch, c.Map, c.N, hr)
	b.WriteString("|---|---|---|---:|---:|")
	if c.HR {
		b.WriteString("---:|")
	}
	b.WriteString("---:|---:|\n")
	for _, r := range c.Rows {
		format := "float32"
		if r.Format != "" {
			format = "`" + r.Format + "`"
		}
		biases := "–"
		if r.WeightBias != nil {
			biases = biasRange(r.WeightBias) + " / " + biasRange(r.ActBias)
		}
		psnr := dbString(r.PSNR)
		if r.Note != "" {
			psnr += " (" + r.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |", r.Label, format, biases, psnr, ratioString(r.SSIM))
		if c.HR {
			fmt.Fprintf(&b, " %s |", dbString(r.YPSNR))
		}
		fmt.Fprintf(&b, " %s | %s |\n", percent(r.Zero), percent(r.Saturated))
	}
	b.WriteString("\nOne generator per row, judged against the FP32 row's 8-bit outputs on the same images (PSNR +∞ and SSIM 1 mean identical outputs); no significance test.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dbString(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "∞"
	case math.IsNaN(x):
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}

func ratioString(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.4f", x)
}
