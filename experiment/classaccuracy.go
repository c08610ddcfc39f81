package experiment

import (
	"fmt"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// ClassAccuracyMetric is the name Sweep.Metrics and positgan compare
// --metrics give the class accuracy of a conditional generator's images
// (GeneratorClassAccuracy). It is not a set metric of eval's registry: it
// needs the classes the images were drawn for and a classifier, not
// features.
const ClassAccuracyMetric = "class-accuracy"

// A Classifier gives the class of every image of a data set, as
// featnet.LeNet.Classify does.
type Classifier interface {
	Classify(ds datasets.Dataset) ([]featnet.Prediction, error)
}

// LoadClassifier returns the LeNet of a feature network spec that names
// one: "lenet-mnist", "lenet-fashion" (featnet.ShippedLeNet) or
// "lenet:FILE" (featnet.LoadLeNet). Other networks, such as Inception,
// are not classifiers of the data sets' classes.
func LoadClassifier(spec string) (*featnet.LeNet, error) {
	if file, ok := strings.CutPrefix(spec, "lenet:"); ok && file != "" {
		return featnet.LoadLeNet(file)
	}
	if isClassifier(spec) {
		return featnet.ShippedLeNet(spec)
	}
	return nil, fmt.Errorf("experiment: %s needs a LeNet classifier (lenet-mnist, lenet-fashion or lenet:FILE), not %q", ClassAccuracyMetric, spec)
}

// isClassifier reports whether LoadClassifier takes spec.
func isClassifier(spec string) bool {
	file, ok := strings.CutPrefix(spec, "lenet:")
	return ok && file != "" || spec == "lenet-mnist" || spec == "lenet-fashion"
}

// ClassAccuracy returns the fraction of the images of ds that c gives the
// class they were drawn for (ds.Label), for each of the classes
// ds.NumClasses() and overall. The overall figure is of all images, so
// it is the mean of the per-class figures weighted by each class's
// images. A class without images has accuracy NaN.
func ClassAccuracy(c Classifier, ds datasets.Dataset) (perClass []float64, overall float64, err error) {
	if ds.Len() == 0 {
		return nil, 0, fmt.Errorf("experiment: class accuracy of no images")
	}
	ps, err := c.Classify(ds)
	if err != nil {
		return nil, 0, err
	}
	if len(ps) != ds.Len() {
		return nil, 0, fmt.Errorf("experiment: %d classes for %d images", len(ps), ds.Len())
	}
	k := ds.NumClasses()
	right := make([]int, k)
	count := make([]int, k)
	total := 0
	for i, p := range ps {
		y := ds.Label(i)
		if y < 0 || y >= k {
			return nil, 0, fmt.Errorf("experiment: image %d has class %d of %d", i, y, k)
		}
		count[y]++
		if p.Class == y {
			right[y]++
			total++
		}
	}
	perClass = make([]float64, k)
	for y := range perClass {
		perClass[y] = float64(right[y]) / float64(count[y]) // NaN for no images
	}
	return perClass, float64(total) / float64(len(ps)), nil
}

// GeneratorClassAccuracy returns the class accuracy (ClassAccuracy) by c
// of the images the conditional generator of checkpoint ck makes:
// perClass images of each class, from noise drawn with seed (as
// gan.GenerateSet draws it), batch at a time (batch <= 0 meaning 100).
// An unconditional generator is refused.
func GeneratorClassAccuracy(ck *ckpt.Checkpoint, c Classifier, perClass int, seed uint64, batch int, o gan.SampleOptions) ([]float64, float64, error) {
	if perClass <= 0 {
		return nil, 0, fmt.Errorf("experiment: %s: %d images of each class, want at least 1", ClassAccuracyMetric, perClass)
	}
	return generatorClassAccuracy(ck, c, func(classes int) int { return perClass * classes }, seed, batch, o)
}

// generatorClassAccuracy is GeneratorClassAccuracy of n(classes) images
// in all, image i of class i mod classes.
func generatorClassAccuracy(ck *ckpt.Checkpoint, c Classifier, n func(classes int) int, seed uint64, batch int, o gan.SampleOptions) ([]float64, float64, error) {
	m, _, err := models.Load(ck, nil)
	if err != nil {
		return nil, 0, err
	}
	gm, ok := m.Model.(gan.Generator)
	if !ok {
		return nil, 0, fmt.Errorf("experiment: %s: the model does not make images from noise", ClassAccuracyMetric)
	}
	classes := gm.Generator().Classes
	if classes == 0 {
		return nil, 0, fmt.Errorf("experiment: %s needs a conditional generator; this one is unconditional", ClassAccuracyMetric)
	}
	total := n(classes)
	if total < classes || total > MaxGenerated {
		return nil, 0, fmt.Errorf("experiment: %s: %d images of %d classes: want %d to %d", ClassAccuracyMetric, total, classes, classes, MaxGenerated)
	}
	g, err := gan.GenerateSet(m, total, seed, batch, o)
	if err != nil {
		return nil, 0, err
	}
	return ClassAccuracy(c, g)
}

// classAccuracyColumn names the overall class accuracy by the classifier
// of the feature network called features, as the table prints it, and
// classColumn the accuracy of class k, which only result.json records.
func classAccuracyColumn(features string) string { return "class accuracy (" + features + ")" }

func classColumn(k int, features string) string {
	return fmt.Sprintf("class accuracy %d (%s)", k, features)
}

// measureClassAccuracy records in res, if ms asks for the class accuracy
// and res lacks it, the class accuracy of the images the generator of
// checkpoint ck makes for the FID (s.N of them, seed s.EvalSeed),
// overall and per class.
func measureClassAccuracy(res *Result, s *Sweep, ck *ckpt.Checkpoint, ms *measurer, o gan.SampleOptions) error {
	for _, e := range ms.extra {
		if e.name != ClassAccuracyMetric {
			continue
		}
		if _, ok := res.Extra[e.columns[0]]; ok {
			return nil
		}
		c, err := LoadClassifier(s.Features)
		if err != nil {
			return err
		}
		per, all, err := generatorClassAccuracy(ck, c, func(int) int { return s.N }, s.EvalSeed, 100, o)
		if err != nil {
			return err
		}
		if res.Extra == nil {
			res.Extra = map[string]float64{}
		}
		for k, v := range per {
			res.Extra[classColumn(k, ms.ext.Name())] = v
		}
		res.Extra[e.columns[0]] = all
	}
	return nil
}
