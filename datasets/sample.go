package datasets

import "fmt"

// Sample returns a view of n samples of ds drawn without replacement in a
// seeded order (the order of a Loader's first epoch with the same seed),
// for evaluations that use a fixed number of images. n >= ds.Len()
// returns ds itself.
func Sample(ds Dataset, n int, seed uint64) (Dataset, error) {
	if n <= 0 {
		return nil, fmt.Errorf("datasets: sample of %d images, want at least 1", n)
	}
	if n >= ds.Len() {
		return ds, nil
	}
	perm := make([]int32, ds.Len())
	permute(perm, seed, 0)
	return &sample{Dataset: ds, idx: perm[:n]}, nil
}

// sample is a subset of a data set in a given order.
type sample struct {
	Dataset
	idx []int32
}

func (s *sample) Len() int                   { return len(s.idx) }
func (s *sample) Image(dst []float32, i int) { s.Dataset.Image(dst, int(s.idx[i])) }
func (s *sample) Label(i int) int            { return s.Dataset.Label(int(s.idx[i])) }

// First returns a view of the first n samples of ds, in order, for
// commands that work on the start of a data set (positgan translate --in
// mnist --n N). n >= ds.Len() returns ds itself.
func First(ds Dataset, n int) (Dataset, error) {
	if n <= 0 {
		return nil, fmt.Errorf("datasets: first %d images, want at least 1", n)
	}
	if n >= ds.Len() {
		return ds, nil
	}
	return first{Dataset: ds, n: n}, nil
}

// first is the first n samples of a data set.
type first struct {
	Dataset
	n int
}

func (f first) Len() int { return f.n }
