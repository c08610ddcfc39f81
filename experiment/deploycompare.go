package experiment

import (
	"context"
	"fmt"
	"image"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/scaling"
	"github.com/positgan/positgan/sparsity"
)

// DeployOptions says what DeployCompare measures. The zero value
// measures the 6-bit table on MNIST with the LeNet-MNIST FID.
type DeployOptions struct {
	// Features is the FID's feature network (featnet.Load); "" means
	// "lenet-mnist".
	Features string
	// Dataset gives the real images: the test split of this data set
	// (datasets.Load); "" means "mnist".
	Dataset string
	// N is the number of images per FID in the table (generated images,
	// and real test images for the reference); 0 means 2000.
	N int
	// SearchN is the number of generated images per FID while searching
	// the float splits and exponent biases; 0 means 500. The search only
	// ranks candidates: every row of the table is measured again on N.
	SearchN int
	// Seed draws the evaluation noise (gan.EvalNoise), the real images of
	// the reference and the grids' noise; 0 means 1.
	Seed uint64
	// Bits are the narrow widths reported beside the 8-bit rows, each as
	// a posit row (posit(b,1), posit(4,0) below 5 bits), the same with
	// exponent biases (+), with the bitwise tanh (+T) and the best float
	// of b bits; nil means {6}. Widths from 3 to 7.
	Bits []int
	// Accum sets every quantized row's accumulation (quant.Accumulation
	// names: fp32, quire, per-op); "" keeps the presets' fp32.
	Accum string
	// Sparsity adds, for each N:M pattern, the rows FP32, Pb and Pb+ of
	// every width with the generator's weights masked to the pattern
	// (deploycompare_sparse.go); nil adds none.
	Sparsity []sparsity.Pattern
	// Log receives a line per candidate measured; nil discards them.
	Log io.Writer

	// In is, for a generator that maps images to images (CycleGAN,
	// ESRGAN; models.ImageMapper), the folder of input images (or one
	// image) the rows are judged on: FID does not apply, so each row's
	// outputs are compared with the FP32 row's by PSNR and SSIM, their
	// means over the images. N is then the number of images in In; the
	// search measures the first SearchN of them. Required for such a
	// generator, refused for one that makes images from noise.
	In string
	// HR is, for a super-resolution generator, a folder of ground truth:
	// for every image of In one of the same name (any image extension),
	// Scale times its size. Each row then also gets the mean Y-PSNR of its
	// outputs against it, with Scale pixels shaved (models.ScoreSR).
	HR string
	// Map names the image map to judge (models.ImageMap.Name, e.g. "AtoB"
	// or "BtoA" of CycleGAN); "" means the one that enlarges, else the
	// first.
	Map string
}

func (o *DeployOptions) defaults() error {
	if o.Features == "" {
		o.Features = "lenet-mnist"
	}
	if o.Dataset == "" {
		o.Dataset = "mnist"
	}
	if o.N == 0 {
		o.N = 2000
	}
	if o.SearchN == 0 {
		o.SearchN = 500
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Bits == nil {
		o.Bits = []int{6}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o.check()
}

// A DeployOptionError is a DeployOptions field DeployCompare cannot take.
type DeployOptionError struct {
	Option string // the field, e.g. "N"
	Err    error
}

func (e *DeployOptionError) Error() string {
	return "experiment: deploy-compare: " + e.Option + ": " + e.Err.Error()
}

func (e *DeployOptionError) Unwrap() error { return e.Err }

// Check reports the first field of o (with its defaults) that
// DeployCompare would refuse, as a *DeployOptionError, before any work:
// a command can tell its user which flag is wrong.
func (o DeployOptions) Check() error {
	return o.check()
}

func (o *DeployOptions) check() error {
	optErr := func(option, format string, a ...any) error {
		return &DeployOptionError{Option: option, Err: fmt.Errorf(format, a...)}
	}
	switch {
	case o.N != 0 && o.N < 2:
		return optErr("N", "an FID needs at least 2 images, have %d", o.N)
	case o.SearchN != 0 && o.SearchN < 2:
		return optErr("SearchN", "an FID needs at least 2 images, have %d", o.SearchN)
	case o.HR != "" && o.In == "":
		return optErr("HR", "ground truth %s without input images (In)", o.HR)
	case len(o.Sparsity) > 0 && o.In != "":
		return optErr("Sparsity", "sparse rows are measured by FID on generators of noise, not on input images (In)")
	case o.Accum != "":
		if _, err := quant.ParseAccumulation(o.Accum); err != nil {
			return &DeployOptionError{Option: "Accum", Err: err}
		}
	}
	if err := o.checkSparsity(); err != nil {
		return err
	}
	for _, b := range o.Bits {
		if b < 3 || b > 7 {
			return optErr("Bits", "width %d bits: want 3 to 7 (8 bits are always in the table)", b)
		}
	}
	return nil
}

// DeployRow is one line of the deployment table: the generator deployed
// with the dot products' operands (weights and activations) in one format,
// everything else as in posit6-deploy (outputs in posit(16,1), biases
// and batch norm in float32).
type DeployRow struct {
	Label  string // "FP32", "P8", "P8+", "P8+T", "FP8", "P6", ...
	Bits   int    // width of the dot products' operands; 32 for FP32
	Format string // their format without exponent bias, "" for FP32
	// WeightBias and ActBias are the exponent biases (quant.Scale) of the
	// weights and activations, one per quantized layer in network order;
	// nil where the row has none.
	WeightBias, ActBias []int
	Tanh                string // the output tanh approximation, "" exact
	Policy              *policy.Policy
	FID                 float64 // on N images; +Inf if an image had a non-finite pixel
	Note                string  // why the FID is not finite, or ""
	Bytes               int     // .pgmodel file size
	// PSNR is the peak signal-to-noise ratio (dB, peak-to-peak 2) of the
	// row's N images against the FP32 row's images from the same noise:
	// how far deployment moved the pixels, which FID does not show
	// (+Inf for FP32 itself; NaN if a pixel is not finite).
	PSNR float64
	// Zero and Saturated are the fractions of the generator's weights
	// that round to zero (nonzero weights only) or lie beyond the weight
	// format's largest finite magnitude (rounded to ±max or ±Inf).
	Zero, Saturated float64
	Candidates      int // formats and bias settings tried to choose the row (FID on SearchN images)
	Images          [][]float32
	// For an image map's table (DeployTable.Map set), FID is NaN, PSNR is
	// in dB on 8-bit outputs (peak 255): the mean over the images of the
	// PSNR of the row's outputs against the FP32 row's; SSIM is the mean
	// SSIM against them (eval.ImageSSIM) and YPSNR the mean Y-PSNR
	// against the ground truth (NaN without it); Outputs are the row's
	// outputs, rounded to 8 bits. Bytes is 0: no .pgmodel is written.
	SSIM, YPSNR float64
	Outputs     []image.Image
	// Sparsity is the weights' N:M mask (deploy.Sparsify); zero: dense.
	Sparsity sparsity.Pattern
}

// DeployCandidate is one format and bias setting measured during the search.
type DeployCandidate struct {
	Row      string // the row it competed for
	Format   string
	DW, DA   int     // offsets from the histogram-chosen biases (weights, activations)
	FID      float64 // on SearchN images
	Note     string
	Seconds  float64
	Selected bool
	PSNR     float64 // for an image map, the mean PSNR against FP32 on SearchN images (FID is NaN)
}

// DeployTable is the deployment table of one checkpoint.
type DeployTable struct {
	Arch       string // the checkpoint's model
	Metric     string // e.g. "FID (LeNet-MNIST)"
	N, SearchN int
	Seed       uint64
	Layers     []string // quantized layers, in the order of DeployRow.WeightBias
	Rows       []DeployRow
	Candidates []DeployCandidate
	Seconds    float64 // wall time of DeployCompare
	grid       gridSpec
	// Map is, for a generator that maps images, the map judged (e.g.
	// "upscale", "AtoB"), "" for an FID table; Scale is its enlargement
	// and HR whether the rows have a Y-PSNR against ground truth. N is
	// then the number of input images and Inputs their names.
	Map    string
	Scale  int
	HR     bool
	Inputs []string
}

type gridSpec struct {
	spec       gan.GeneratorSpec
	rows, cols int
}

// comparer holds what every measurement of one DeployCompare call
// shares.
type comparer struct {
	ctx     context.Context
	o       DeployOptions
	c       *ckpt.Checkpoint
	ext     featnet.Extractor
	ref     eval.Stats
	layers  []string
	weights map[string][]float32 // float32 weights by layer
	wh, ah  map[string]scaling.Histogram
	spec    gan.GeneratorSpec
	out     *DeployTable
	pix32   []float32       // the FP32 row's N images
	judge   *mapJudge       // for a generator that maps images, nil otherwise
	sparse  []deploy.Option // the export options of the sparse rows being measured
}

// DeployCompare measures the deployment table of checkpoint c (trained in
// float32): FP32, P8, P8+, P8+T, the best FP8, and for every width of
// o.Bits the posit, posit with exponent biases (+), the same with the
// bitwise tanh (+T) and the best float of that width, each as a deployed
// generator (deploy.Export, then Generate), with its FID, file size and the
// fraction of weights that round to zero or saturate.
//
// Exponent biases: for each format, every layer's weights and
// activations get the bias scaling.ChooseBias picks from their
// histograms (the weights of c, the activations of the float32 generator
// on SearchN evaluation images); a hill climb then shifts all weight
// biases or all activation biases by ±1 while the FID on SearchN images
// improves. "Best float" is the split, encoding and bias setting with
// the lowest FID on SearchN images among deploy.FloatCandidates (every candidate
// at its histogram biases, then the hill climb from the best two). The
// rows are then measured on N images with the same noise seed.
func DeployCompare(ctx context.Context, c *ckpt.Checkpoint, o DeployOptions) (*DeployTable, error) {
	start := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	cfg, maps, err := mapOptionsOf(c, o)
	if err != nil {
		return nil, err
	}
	if maps != nil {
		cm := &comparer{ctx: ctx, o: o, c: c, weights: map[string][]float32{},
			wh: map[string]scaling.Histogram{}, ah: map[string]scaling.Histogram{}}
		return deployCompareMap(cm, cfg, maps, start)
	}
	ext, err := featnet.Load(o.Features)
	if err != nil {
		return nil, fmt.Errorf("experiment: deploy-compare: %w", err)
	}
	fp32, err := policy.Parse("fp32")
	if err != nil {
		return nil, err
	}
	m32, err := deploy.Export(c, fp32)
	if err != nil {
		return nil, err
	}
	spec := m32.Spec()
	test, err := datasets.Load(o.Dataset, datasets.Options{Split: datasets.Test, Height: spec.Image.H, Width: spec.Image.W, Channels: spec.Image.C})
	if err != nil {
		return nil, fmt.Errorf("experiment: deploy-compare: the FID's real images: %w", err)
	}
	if test.Len() < o.N {
		return nil, fmt.Errorf("experiment: deploy-compare: the test split of %s has %d images, fewer than N = %d", o.Dataset, test.Len(), o.N)
	}
	sub, err := datasets.Sample(test, o.N, o.Seed)
	if err != nil {
		return nil, err
	}
	x, err := featnet.FeaturesOf(ext, sub, 100)
	if err != nil {
		return nil, fmt.Errorf("experiment: deploy-compare: reference: %w", err)
	}
	ref, err := eval.StatsOf(x)
	if err != nil {
		return nil, fmt.Errorf("experiment: deploy-compare: reference: %w", err)
	}
	metric, err := fidLabel(ext.Name())
	if err != nil {
		return nil, err
	}
	rows, cols := gan.GridShape(spec, 64)
	cmp := &comparer{ctx: ctx, o: o, c: c, ext: ext, ref: ref, spec: spec, weights: map[string][]float32{},
		wh: map[string]scaling.Histogram{}, ah: map[string]scaling.Histogram{},
		out: &DeployTable{Arch: m32.Meta.Model.Arch, Metric: metric, N: o.N, SearchN: o.SearchN, Seed: o.Seed,
			grid: gridSpec{spec: spec, rows: rows, cols: cols}}}
	if err := cmp.histograms(m32); err != nil {
		return nil, err
	}
	cmp.out.Layers = cmp.layers
	if err := cmp.rows(); err != nil {
		return nil, err
	}
	if err := cmp.sparseRows(append([]int{8}, o.Bits...)); err != nil {
		return nil, err
	}
	cmp.out.Seconds = time.Since(start).Seconds()
	return cmp.out, nil
}

// rows measures the table's rows: FP32, then for 8 bits and every width
// of o.Bits the posit, the posit with exponent biases (+), the same with
// the bitwise tanh (+T; not for image maps, which are judged against the
// float32 outputs rather than for their images' realism) and the best
// float.
func (cm *comparer) rows() error {
	if err := cm.fixed("FP32", 32, nil, "", nil); err != nil {
		return err
	}
	widths := append([]int{8}, cm.o.Bits...)
	for _, b := range widths {
		p, err := quant.Parse(deploy.PositFor(b))
		if err != nil {
			return err
		}
		if err := cm.fixed("P"+strconv.Itoa(b), b, p, "", nil); err != nil {
			return err
		}
		w, a, _, n, err := cm.climb("P"+strconv.Itoa(b)+"+", p, "", math.NaN())
		if err != nil {
			return err
		}
		bias := &[2][]int{w, a}
		if err := cm.fixedN("P"+strconv.Itoa(b)+"+", b, p, "", bias, n); err != nil {
			return err
		}
		if cm.judge == nil {
			if err := cm.fixed("P"+strconv.Itoa(b)+"+T", b, p, "bitwise-corrected:posit(16,0)", bias); err != nil {
				return err
			}
		}
		if err := cm.bestFloat(b); err != nil {
			return err
		}
	}
	return nil
}

// histograms records the quantized layers, their float32 weights and the
// log2 histograms of weights and of the activations the float32
// generator feeds each layer on SearchN evaluation images.
func (cm *comparer) histograms(m32 *deploy.Model) error {
	for _, l := range m32.Meta.Layers {
		cm.layers = append(cm.layers, l.Name)
		t := m32.Tensor(l.Name + ".w")
		if t == nil {
			return fmt.Errorf("experiment: deploy-compare: layer %s has no weights", l.Name)
		}
		cm.weights[l.Name] = t.Values()
		cm.wh[l.Name] = scaling.Log2Histogram(cm.weights[l.Name])
	}
	_, err := cm.evalBatches(cm.o.SearchN, func(z []float32, labels []int) error {
		_, err := m32.GenerateTaps(z, labels, func(taps []nn.Tap) {
			for _, tp := range taps {
				h := cm.ah[tp.Layer]
				h.Add(tp.In.Value().Data().([]float32))
				cm.ah[tp.Layer] = h
			}
		})
		return err
	})
	return err
}

// evalBatches calls f on the evaluation noise (gan.EvalNoise, the
// comparison's seed) of n images, 100 images at a time, and returns the
// labels of all n (nil for an unconditional generator).
func (cm *comparer) evalBatches(n int, f func(z []float32, labels []int) error) ([]int, error) {
	z, labels := gan.EvalNoise(cm.spec, cm.o.Seed, n)
	zs := cm.spec.ZSize()
	for i := 0; i < n; i += 100 {
		k := min(100, n-i)
		var lab []int
		if labels != nil {
			lab = labels[i : i+k]
		}
		if err := f(z[i*zs:(i+k)*zs], lab); err != nil {
			return nil, err
		}
	}
	return labels, nil
}

// policy returns the deployment policy with dot-product operands in f
// (nil: float32 everywhere), per-layer biases (nil: none) and tanh.
func (cm *comparer) policy(label string, f quant.Format, bias *[2][]int, tanh string) (*policy.Policy, error) {
	p, err := policy.Parse("fp32")
	if err != nil {
		return nil, err
	}
	p.Name = label
	if f == nil {
		return p, nil
	}
	set := []string{"all=posit(16,1)", "dot=" + f.String()}
	if cm.o.Accum != "" {
		set = append(set, "accum="+cm.o.Accum)
	}
	if tanh != "" {
		set = append(set, "tanh="+tanh)
	}
	if bias != nil {
		for i, l := range cm.layers {
			for r, role := range []string{"weight", "act"} {
				g, err := quant.Scale(f, bias[r][i])
				if err != nil {
					return nil, err
				}
				set = append(set, l+":"+role+"="+g.String())
			}
		}
	}
	for _, s := range set {
		if err := p.Apply(s); err != nil {
			return nil, fmt.Errorf("experiment: deploy-compare: %s: %w", label, err)
		}
	}
	return p, nil
}

// histBias returns every layer's histogram-chosen weight and activation
// biases for f, shifted by dw and da.
func (cm *comparer) histBias(f quant.Format, dw, da int) (*[2][]int, error) {
	var b [2][]int
	for _, l := range cm.layers {
		for r, h := range []scaling.Histogram{cm.wh[l], cm.ah[l]} {
			k, err := scaling.ChooseBias(h, f)
			if err != nil {
				return nil, fmt.Errorf("experiment: deploy-compare: layer %s: %w", l, err)
			}
			d := dw
			if r == 1 {
				d = da
			}
			b[r] = append(b[r], k+d)
		}
	}
	return &b, nil
}

// measure exports c under p and returns the FID of n generated images
// (+Inf with a note if a pixel is not finite or the statistics are
// degenerate), the model, and the images of the grid if grid is set.
func (cm *comparer) measure(p *policy.Policy, n int, grid bool) (fid float64, note string, m *deploy.Model, images, pix []float32, err error) {
	if err := cm.ctx.Err(); err != nil {
		return 0, "", nil, nil, nil, err
	}
	if m, err = deploy.Export(cm.c, p, cm.sparse...); err != nil {
		return 0, "", nil, nil, nil, err
	}
	pix = make([]float32, 0, n*cm.spec.Image.Size())
	labels, err := cm.evalBatches(n, func(z []float32, labels []int) error {
		out, err := m.Generate(z, labels)
		pix = append(pix, out...)
		return err
	})
	if err != nil {
		return 0, "", nil, nil, nil, err
	}
	if grid {
		gz, gl := gan.FixedNoise(cm.spec, cm.o.Seed, cm.out.grid.rows, cm.out.grid.cols)
		if images, err = m.Generate(gz, gl); err != nil {
			return 0, "", nil, nil, nil, err
		}
	}
	bad := 0
	for _, v := range pix {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			bad++
		}
	}
	if bad > 0 {
		return math.Inf(1), fmt.Sprintf("%d non-finite pixels", bad), m, images, pix, nil
	}
	x, err := featnet.FeaturesOf(cm.ext, gan.NewGenerated(cm.spec, pix, labels), 100)
	if err != nil {
		return 0, "", nil, nil, nil, err
	}
	fid, err = fidOf(eval.Features{Rows: x}, eval.Features{Stats: cm.ref})
	if err != nil {
		return math.Inf(1), err.Error(), m, images, pix, nil
	}
	return fid, "", m, images, pix, nil
}

// fixed measures one row of the table on N images.
func (cm *comparer) fixed(label string, bits int, f quant.Format, tanh string, bias *[2][]int) error {
	return cm.fixedN(label, bits, f, tanh, bias, 0)
}

func (cm *comparer) fixedN(label string, bits int, f quant.Format, tanh string, bias *[2][]int, tried int) error {
	if cm.judge != nil {
		return cm.mapRow(label, bits, f, bias, tried)
	}
	p, err := cm.policy(label, f, bias, tanh)
	if err != nil {
		return err
	}
	t0 := time.Now()
	fid, note, m, images, pix, err := cm.measure(p, cm.o.N, true)
	if err != nil {
		return fmt.Errorf("experiment: deploy-compare: %s: %w", label, err)
	}
	b, err := m.Bytes()
	if err != nil {
		return err
	}
	r := DeployRow{Label: label, Bits: bits, Tanh: tanh, Policy: p, FID: fid, Note: note, Bytes: len(b), Candidates: tried, Images: [][]float32{images}}
	if f == nil && cm.pix32 == nil { // the first row; not a sparse FP32 row
		cm.pix32 = pix
	}
	if r.PSNR, err = eval.PSNR(pix, cm.pix32, 2); err != nil {
		r.PSNR = math.NaN()
	}
	if f != nil {
		r.Format = f.String()
		if bias != nil {
			r.WeightBias, r.ActBias = slices.Clone(bias[0]), slices.Clone(bias[1])
		}
		r.Zero, r.Saturated = cm.weightFractions(p)
	}
	cm.out.Rows = append(cm.out.Rows, r)
	fmt.Fprintf(cm.o.Log, "%s %s: %s %.4g on %d images (%s), PSNR against FP32 %.2f dB, %d bytes, %.3g%% zero, %.3g%% saturated\n",
		cm.out.Arch, label, cm.out.Metric, fid, cm.o.N, time.Since(t0).Round(time.Millisecond), r.PSNR, len(b), 100*r.Zero, 100*r.Saturated)
	return nil
}

// weightFractions returns the fractions of the weights that the policy's
// weight formats round to zero (of the nonzero weights) and that lie
// beyond the largest finite value.
func (cm *comparer) weightFractions(p *policy.Policy) (zero, sat float64) {
	var nz, nzero, n, nsat int
	for _, l := range cm.layers {
		f := p.For(l).Weight.Format
		if f == nil {
			continue
		}
		lim := scaling.MaxFinite(f)
		for _, w := range cm.weights[l] {
			n++
			if w != 0 {
				nz++
				if f.Round(w) == 0 {
					nzero++
				}
			}
			if math.Abs(float64(w)) > lim {
				nsat++
			}
		}
	}
	if nz > 0 {
		zero = float64(nzero) / float64(nz)
	}
	if n > 0 {
		sat = float64(nsat) / float64(n)
	}
	return zero, sat
}

// candidate measures f with the histogram biases shifted by (dw, da) on
// SearchN images and records it.
func (cm *comparer) candidate(row string, f quant.Format, tanh string, dw, da int) (float64, error) {
	bias, err := cm.histBias(f, dw, da)
	if err != nil {
		return 0, err
	}
	p, err := cm.policy(row, f, bias, tanh)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	var fid float64 // the loss the search minimises
	var note string
	if cm.judge != nil {
		fid, note, err = cm.mapLoss(p)
	} else {
		fid, note, _, _, _, err = cm.measure(p, cm.o.SearchN, false)
	}
	if err != nil {
		return 0, fmt.Errorf("experiment: deploy-compare: %s %v: %w", row, f, err)
	}
	c := DeployCandidate{Row: row, Format: f.String(), DW: dw, DA: da, FID: fid, Note: note, Seconds: time.Since(t0).Seconds(), PSNR: math.NaN()}
	shown := fid
	if cm.judge != nil {
		c.FID, c.PSNR, shown = math.NaN(), -fid, -fid
	}
	cm.out.Candidates = append(cm.out.Candidates, c)
	fmt.Fprintf(cm.o.Log, "%s search %s: %v, biases %+d/%+d: %s %.4g on %d images (%.1f s)%s\n",
		cm.out.Arch, row, f, dw, da, cm.out.Metric, shown, cm.out.SearchN, c.Seconds, noteSuffix(note))
	return fid, nil
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return " (" + note + ")"
}

// climb hill-climbs the bias offsets of f from the histogram biases: it
// tries ±1 on the weight offset and on the activation offset and moves to
// the best neighbour while that lowers the FID (at most 4 moves). start
// is the FID at the histogram biases if already measured, NaN if not. It
// returns the best biases, their FID, and the number of settings it
// measured.
func (cm *comparer) climb(row string, f quant.Format, tanh string, start float64) (w, a []int, fid float64, tried int, err error) {
	dw, da := 0, 0
	best := start
	if math.IsNaN(best) {
		if best, err = cm.candidate(row, f, tanh, 0, 0); err != nil {
			return nil, nil, 0, 0, err
		}
		tried = 1
	}
	seen := map[[2]int]bool{{dw, da}: true}
	for range 4 {
		moved := false
		bw, ba := dw, da
		for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
			k := [2]int{dw + d[0], da + d[1]}
			if seen[k] {
				continue
			}
			seen[k] = true
			fid, err := cm.candidate(row, f, tanh, k[0], k[1])
			if err != nil {
				return nil, nil, 0, 0, err
			}
			tried++
			if fid < best {
				best, bw, ba, moved = fid, k[0], k[1], true
			}
		}
		if !moved {
			break
		}
		dw, da = bw, ba
	}
	cm.markSelected(row, f.String(), dw, da)
	bias, err := cm.histBias(f, dw, da)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	return bias[0], bias[1], best, tried, nil
}

func (cm *comparer) markSelected(row, format string, dw, da int) {
	for i := range cm.out.Candidates {
		c := &cm.out.Candidates[i]
		if c.Row == row && c.Format == format {
			c.Selected = c.DW == dw && c.DA == da
		}
	}
}

// bestFloat searches the b-bit floats and adds the winner's row.
func (cm *comparer) bestFloat(b int) error {
	row := "FP" + strconv.Itoa(b)
	type scored struct {
		f   quant.Format
		fid float64
	}
	var all []scored
	for _, f := range deploy.FloatCandidates(b) {
		fid, err := cm.candidate(row, f, "", 0, 0)
		if err != nil {
			return err
		}
		all = append(all, scored{f, fid})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].fid < all[j].fid })
	tried := len(all)
	type win struct {
		f    quant.Format
		w, a []int
		fid  float64
	}
	var best *win
	for _, s := range all[:min(2, len(all))] {
		w, a, fid, n, err := cm.climb(row, s.f, "", s.fid)
		if err != nil {
			return err
		}
		tried += n
		if best == nil || fid < best.fid {
			best = &win{s.f, w, a, fid}
		}
	}
	// Only the overall winner stays selected.
	for i := range cm.out.Candidates {
		c := &cm.out.Candidates[i]
		if c.Row == row && c.Format != best.f.String() {
			c.Selected = false
		}
	}
	label := row + " " + splitName(best.f)
	return cm.fixedN(label, b, best.f, "", &[2][]int{best.w, best.a}, tried)
}

// splitName returns "e3m2" for a float format with 3 exponent and 2
// mantissa bits: "float(3,2,...)" or a preset such as "fp6-e3m2".
func splitName(f quant.Format) string {
	s := f.String()
	if rest, ok := strings.CutPrefix(s, "float("); ok {
		if parts := strings.Split(strings.TrimSuffix(rest, ")"), ","); len(parts) >= 2 {
			return "e" + parts[0] + "m" + parts[1]
		}
	}
	if _, split, ok := strings.Cut(s, "-"); ok {
		return split
	}
	return s
}
