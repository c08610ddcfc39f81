package featnet

import (
	"fmt"
	"math"

	"github.com/positgan/positgan/datasets"
)

// A Prediction is the class a classifier gives one image and its
// softmax probability.
type Prediction struct {
	Class      int
	Confidence float64
}

// Classify returns l's prediction for every image of ds (the largest
// logit, ties to the lower class; the confidence is its softmax
// probability), in order: how to check that a conditional generator draws
// the class it is asked for.
func (l *LeNet) Classify(ds datasets.Dataset) ([]Prediction, error) {
	if err := l.checkImages(ds); err != nil {
		return nil, err
	}
	out := make([]Prediction, ds.Len())
	err := l.forEachBatch(ds.Len(), ds.Image, func(lg *lenetGraph, first, count int) {
		z := lg.logits.Value().Data().([]float32)
		for k := 0; k < count; k++ {
			row := z[k*l.Classes : (k+1)*l.Classes]
			c := argmax(row)
			var sum float64
			for _, v := range row {
				sum += math.Exp(float64(v - row[c]))
			}
			out[first+k] = Prediction{Class: c, Confidence: 1 / sum}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkImages reports whether l can classify the images of ds.
func (l *LeNet) checkImages(ds datasets.Dataset) error {
	if s := ds.Shape(); s != (datasets.Shape{C: 1, H: lenetSize, W: lenetSize}) {
		return fmt.Errorf("featnet: lenet classifies 1x28x28 images, the data set has %v", s)
	}
	return nil
}

// ClassifyFiles classifies the image files (Classify), each brought to
// l's 1×28×28 gray input as an FID brings images (datasets.LoadFiles).
// converted is the number of images that needed it.
func (l *LeNet) ClassifyFiles(files []string) (ps []Prediction, converted int, err error) {
	ds, converted, err := datasets.LoadFiles(files, datasets.Options{Height: 28, Width: 28, Channels: 1})
	if err != nil {
		return nil, 0, err
	}
	ps, err = l.Classify(ds)
	return ps, converted, err
}
