package models

// CycleGAN's evaluation and inference: the FID of each direction of
// translation (TranslationFID), what positgan translate --fid prints and
// a sweep measures CycleGAN runs by (its Evaluator).

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/policy"
)

// Directions of an image-to-image translation model: AtoB runs G_AB on
// images of domain A, BtoA runs G_BA on images of domain B.
const (
	AtoB = "AtoB"
	BtoA = "BtoA"
)

// ParseDirection returns AtoB or BtoA for the ways of writing them that
// positgan translate accepts (AtoB, A2B, AB, any case), and the generator
// group that translates that way.
func ParseDirection(s string) (direction, group string, err error) {
	switch strings.ToLower(s) {
	case "atob", "a2b", "ab":
		return AtoB, GroupGAB, nil
	case "btoa", "b2a", "ba":
		return BtoA, GroupGBA, nil
	}
	return "", "", fmt.Errorf("models: direction %q: want AtoB or BtoA", s)
}

// ImageMaps returns the two ways CycleGAN translates: AtoB by G_AB, BtoA
// by G_BA.
func (m *cycleGAN) ImageMaps() []ImageMap {
	return []ImageMap{{Name: AtoB, Group: GroupGAB, Scale: 1}, {Name: BtoA, Group: GroupGBA, Scale: 1}}
}

// newTranslationEvaluator returns CycleGAN's Evaluator, which keeps the
// real images' statistics of a sweep from run to run.
func newTranslationEvaluator() Evaluator { return translationEvaluator{refs: new(translationRefs)} }

// TranslationFeatures returns the feature network that judges images of
// the target domain of a direction of the unpaired data set: for
// datasets.MNISTFashion, lenet-fashion for AtoB (clothes) and lenet-mnist
// for BtoA (digits). Other data sets have no default: the feature network
// must be named (inception:FILE, or a LeNet of positgan lenet train).
func TranslationFeatures(dataset, direction string) (string, error) {
	if dataset != datasets.MNISTFashion {
		return "", fmt.Errorf("models: no default feature network for the translations of %s; name one (%s)", dataset, featnet.Specs)
	}
	if direction == AtoB {
		return "lenet-fashion", nil
	}
	return "lenet-mnist", nil
}

// translationFeatureNet returns features, or if it is empty
// TranslationFeatures' choice for the direction of dataset.
func translationFeatureNet(dataset, direction, features string) (string, error) {
	if features == "" {
		return TranslationFeatures(dataset, direction)
	}
	return features, nil
}

// A TranslationFID says how TranslationFID measures one direction of a
// translation model.
type TranslationFID struct {
	// Dataset is the unpaired data set whose test splits are used
	// (datasets.LoadTranslation: mnist-fashion or a folder holding testA
	// and testB).
	Dataset   string
	Direction string // AtoB or BtoA
	// Features is the feature network (featnet.Load); empty means
	// TranslationFeatures' choice.
	Features string
	// N test images of the source domain, drawn with Seed, are translated
	// and compared with N test images of the target domain drawn with
	// Seed; 0 means every image of the smaller test split.
	N     int
	Seed  uint64
	Batch int // images per forward pass; <= 0 means 100
	// Policy, if not nil, runs the generator in another policy than the
	// checkpoint's (e.g. a deployment preset).
	Policy *policy.Policy
}

// Measure returns the FID of the translations of test images of the
// source domain by the checkpoint's generator against real test images
// of the target domain, and the metric's name (e.g. "FID (LeNet-Fashion)").
// It is the FID per direction that CycleGAN papers report, here with the
// feature network named.
func (o TranslationFID) Measure(c *ckpt.Checkpoint) (fid float64, metric string, err error) {
	return (&translationMeasurer{o: o, c: c}).measure(o.Direction)
}

// A translationMeasurer measures TranslationFIDs of one checkpoint in
// either direction, loading the test splits, the generators and each
// feature network once for all of them: a CycleGAN run is measured both
// ways.
type translationMeasurer struct {
	o    TranslationFID // Direction is measure's
	c    *ckpt.Checkpoint
	refs *translationRefs             // nil: the real images' statistics are made anew
	a, b datasets.Dataset             // the test splits; nil until loaded
	load datasets.Options             // what a and b were loaded with
	nets *gan.Nets                    // nil until loaded
	exts map[string]featnet.Extractor // by spec
}

// measure is Measure in direction.
func (m *translationMeasurer) measure(direction string) (fid float64, metric string, err error) {
	o := m.o
	dir, group, err := ParseDirection(direction)
	if err != nil {
		return 0, "", err
	}
	spec, err := translationFeatureNet(o.Dataset, dir, o.Features)
	if err != nil {
		return 0, "", err
	}
	ext, err := m.extractor(spec)
	if err != nil {
		return 0, "", err
	}
	if err := m.loadTests(); err != nil {
		return 0, "", err
	}
	src, dst := m.a, m.b
	if dir == BtoA {
		src, dst = m.b, m.a
	}
	n := o.N
	if n == 0 {
		n = min(src.Len(), dst.Len())
	}
	if n < 2 || n > src.Len() || n > dst.Len() {
		return 0, "", fmt.Errorf("models: %d images per FID: the test splits hold %d and %d images, and an FID needs at least 2", n, src.Len(), dst.Len())
	}
	if src, err = datasets.Sample(src, n, o.Seed); err != nil {
		return 0, "", err
	}
	batch := o.Batch
	if batch <= 0 {
		batch = 100
	}
	if m.nets == nil {
		if m.nets, _, err = Load(m.c, o.Policy); err != nil {
			return 0, "", err
		}
	}
	out, err := mapImages(m.nets, group, src, batch)
	if err != nil {
		return 0, "", err
	}
	fake, err := featnet.FeaturesOf(ext, gan.NewGenerated(gan.GeneratorSpec{Image: src.Shape()}, out, nil), 100)
	if err != nil {
		return 0, "", err
	}
	sf, err := eval.StatsOf(fake)
	if err != nil {
		return 0, "", err
	}
	key := translationRef{dataset: o.Dataset, load: m.load, direction: dir, features: spec, n: n, seed: o.Seed}
	sr, err := m.refs.stats(key, func() (eval.Stats, error) {
		real, err := datasets.Sample(dst, n, o.Seed)
		if err != nil {
			return eval.Stats{}, err
		}
		x, err := featnet.FeaturesOf(ext, real, 100)
		if err != nil {
			return eval.Stats{}, err
		}
		return eval.StatsOf(x)
	})
	if err != nil {
		return 0, "", err
	}
	fid, err = eval.FrechetDistance(sf, sr)
	return fid, featnet.MetricName(ext), err
}

// extractor returns the feature network spec names, loaded once per spec:
// both directions have the same one when it is named.
func (m *translationMeasurer) extractor(spec string) (featnet.Extractor, error) {
	if ext, ok := m.exts[spec]; ok {
		return ext, nil
	}
	ext, err := featnet.Load(spec)
	if err != nil {
		return nil, err
	}
	if m.exts == nil {
		m.exts = map[string]featnet.Extractor{}
	}
	m.exts[spec] = ext
	return ext, nil
}

// translationRefs keeps the feature statistics of the real side of
// translation FIDs, the sampled test images of the target domain, by what
// they depend on: they are the same for every run of a sweep, and making
// them again for each run costs a pass of the feature network over N
// images per direction.
type translationRefs struct {
	mu sync.Mutex
	m  map[translationRef]eval.Stats
}

// A translationRef is what the real side of a translation FID depends on.
// The test splits are loaded at the size of the checkpoint's images, so
// the load options are part of it; the generator, its policy and its
// batch are not.
type translationRef struct {
	dataset   string
	load      datasets.Options
	direction string // the target domain: B for AtoB, A for BtoA
	features  string // the feature network's spec
	n         int
	seed      uint64
}

// stats returns the statistics of key, made by compute unless r holds them
// already. A nil r holds nothing.
func (r *translationRefs) stats(key translationRef, compute func() (eval.Stats, error)) (eval.Stats, error) {
	if r == nil {
		return compute()
	}
	r.mu.Lock()
	st, ok := r.m[key]
	r.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := compute()
	if err != nil {
		return eval.Stats{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[translationRef]eval.Stats{}
	}
	r.m[key] = st
	return st, nil
}

// loadTests loads both test splits at the size of the checkpoint's
// images, once: each direction reads both.
func (m *translationMeasurer) loadTests() error {
	if m.a != nil {
		return nil
	}
	cfg, err := ConfigOf(m.c)
	if err != nil {
		return err
	}
	if spec, _ := Lookup(cfg.Arch); spec.Domains != 2 {
		return fmt.Errorf("models: the checkpoint holds a %s model, which does not translate images", cfg.Arch)
	}
	opt := datasets.Options{Split: datasets.Test, Height: cfg.Height, Width: cfg.Width, Channels: cfg.Channels}
	a, b, err := datasets.LoadTranslation(m.o.Dataset, opt)
	if err != nil {
		return err
	}
	m.a, m.b, m.load = a, b, opt
	return nil
}

// translationEvaluator is CycleGAN's Evaluator: the FID of each direction
// (TranslationFID) on the sweep's unpaired data set, N images each,
// drawn with Seed.
type translationEvaluator struct {
	// refs, if not nil, keeps the real images' statistics from run to
	// run: they depend on the sweep, not on the run.
	refs *translationRefs
}

// Data loads the training domains as positgan train does
// (translationData): mnist-fashion at 28x28; a folder at 286/256 x 64
// (73x73), served as random 64x64 crops, flipped at random (Zhu et al.'s
// augmentation), the crops and flips drawn with DataSeed for every run.
func (translationEvaluator) Data(s EvalSettings) ([]datasets.Dataset, error) {
	ts, err := translationData(DataSettings{Dataset: s.Dataset, Seed: s.DataSeed, Batch: s.Batch})
	return ts.Data, err
}

func (translationEvaluator) Metrics(s EvalSettings) ([]string, error) {
	var names []string
	for _, dir := range []string{AtoB, BtoA} {
		spec, err := translationFeatureNet(s.Dataset, dir, s.Features)
		if err != nil {
			return nil, err
		}
		// Loaded, not only named: a damaged weight file is then refused
		// before any run trains.
		ext, err := featnet.Load(spec)
		if err != nil {
			return nil, err
		}
		names = append(names, strings.Replace(featnet.MetricName(ext), "FID", "FID "+arrow(dir), 1))
	}
	return names, nil
}

// arrow writes a direction as the tables do: A→B, B→A.
func arrow(direction string) string {
	if direction == AtoB {
		return "A→B"
	}
	return "B→A"
}

func (translationEvaluator) Describe(s EvalSettings) string {
	return fmt.Sprintf("FID per direction: translations of %d test images of the source domain against %d test images of the target domain.", s.N, s.N)
}

func (e translationEvaluator) Evaluate(ctx context.Context, s EvalSettings, c *ckpt.Checkpoint) ([]float64, error) {
	var figs []float64
	m := &translationMeasurer{o: TranslationFID{Dataset: s.Dataset, Features: s.Features, N: s.N, Seed: s.Seed}, c: c, refs: e.refs}
	for _, dir := range []string{AtoB, BtoA} {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fid, _, err := m.measure(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", arrow(dir), err)
		}
		figs = append(figs, fid)
	}
	return figs, nil
}
