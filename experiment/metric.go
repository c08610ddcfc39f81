package experiment

import "github.com/positgan/positgan/eval"

// fid returns the registered FID (eval.LookupSet), which the sweep and
// the deployment table measure generators by.
func fid() (eval.SetMetric, error) { return eval.LookupSet("fid") }

// fidOf returns the FID between the image sets a and b.
func fidOf(a, b eval.Features) (float64, error) {
	m, err := fid()
	if err != nil {
		return 0, err
	}
	figs, err := m.CompareSets(a, b, eval.Options{})
	if err != nil {
		return 0, err
	}
	return figs[0], nil
}

// fidLabel names the FID of the feature network called features, as
// tables and logs print it: "FID (LeNet-MNIST)".
func fidLabel(features string) (string, error) {
	m, err := fid()
	if err != nil {
		return "", err
	}
	return m.Label(features), nil
}
