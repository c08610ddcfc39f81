package datasets

import (
	"errors"
	"fmt"
	"strconv"
)

// Split selects the training or the test part of a data set.
type Split uint8

const (
	// Train is the training split. It is the default.
	Train Split = iota
	// Test is the held-out test split.
	Test
)

func (s Split) String() string {
	switch s {
	case Train:
		return "train"
	case Test:
		return "test"
	}
	return "Split(" + strconv.Itoa(int(s)) + ")"
}

// Shape is the shape of one sample: channels, height and width.
type Shape struct{ C, H, W int }

// Size returns the number of values in one sample, C·H·W.
func (s Shape) Size() int { return s.C * s.H * s.W }

func (s Shape) String() string { return fmt.Sprintf("%dx%dx%d", s.C, s.H, s.W) }

// Dataset is a finite, indexable collection of labelled images. *Set is the
// implementation this package provides; a Loader accepts any Dataset.
type Dataset interface {
	// Len returns the number of samples.
	Len() int
	// Shape returns the shape of every sample.
	Shape() Shape
	// NumClasses returns the number of classes; labels are in
	// [0, NumClasses). A data set without classes has one.
	NumClasses() int
	// Image writes sample i to dst in (C, H, W) order, normalized to
	// [-1, 1]. len(dst) must be Shape().Size().
	Image(dst []float32, i int)
	// Label returns the class of sample i.
	Label(i int) int
}

// Set is a data set held in memory as 8-bit pixels. It is safe for
// concurrent reads.
type Set struct {
	name    string
	shape   Shape
	pix     []uint8 // Len·Size values, sample after sample, each (C, H, W)
	labels  []int32
	classes []string
}

// NewSet returns a Set of len(labels) samples whose pixels are pix, sample
// after sample, each in (C, H, W) order. classes names the classes (its
// length is the number of classes); nil means one unnamed class per label
// value up to the largest. NewSet keeps pix and labels without copying.
// name is used in messages.
func NewSet(name string, shape Shape, pix []uint8, labels []int, classes []string) (*Set, error) {
	if shape.C <= 0 || shape.H <= 0 || shape.W <= 0 {
		return nil, fmt.Errorf("datasets: %s: bad shape %v", name, shape)
	}
	if len(pix) != len(labels)*shape.Size() {
		return nil, fmt.Errorf("datasets: %s: %d pixel values for %d samples of %v, want %d",
			name, len(pix), len(labels), shape, len(labels)*shape.Size())
	}
	l32 := make([]int32, len(labels))
	max := -1
	for i, l := range labels {
		if l < 0 || (classes != nil && l >= len(classes)) || l > 1<<30 {
			return nil, fmt.Errorf("datasets: %s: sample %d: label %d out of range", name, i, l)
		}
		l32[i] = int32(l)
		max = maxInt(max, l)
	}
	if classes == nil {
		classes = make([]string, max+1)
		for i := range classes {
			classes[i] = strconv.Itoa(i)
		}
	}
	return &Set{name: name, shape: shape, pix: pix, labels: l32, classes: classes}, nil
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Name returns the name the set was created with: a data set name and
// split, or a path.
func (s *Set) Name() string { return s.name }

// Len returns the number of samples.
func (s *Set) Len() int { return len(s.labels) }

// Shape returns the shape of every sample.
func (s *Set) Shape() Shape { return s.shape }

// NumClasses returns the number of classes.
func (s *Set) NumClasses() int { return len(s.classes) }

// Classes returns the class names, indexed by label. The caller must not
// modify the slice.
func (s *Set) Classes() []string { return s.classes }

// Label returns the class of sample i.
func (s *Set) Label(i int) int { return int(s.labels[i]) }

// Pixels returns the 8-bit pixels of sample i in (C, H, W) order. The
// caller must not modify the slice.
func (s *Set) Pixels(i int) []uint8 {
	n := s.shape.Size()
	return s.pix[i*n : (i+1)*n : (i+1)*n]
}

// Image writes sample i to dst, each pixel p as p/127.5 - 1 (so 0 maps to
// -1 and 255 to 1). It panics if len(dst) != s.Shape().Size().
func (s *Set) Image(dst []float32, i int) {
	if len(dst) != s.shape.Size() {
		panic(errLength)
	}
	normalize(dst, s.Pixels(i))
}

var errLength = errors.New("datasets: slice length mismatch")

// FileError reports a file or directory that cannot be used as data.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return "datasets: " + e.Path + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// FormatError reports malformed content: a file that is not what its name
// or role says it is.
type FormatError string

func (e FormatError) Error() string { return string(e) }

// formatErr returns a *FileError wrapping a formatted FormatError.
func formatErr(path, format string, a ...any) error {
	return &FileError{Path: path, Err: FormatError(fmt.Sprintf(format, a...))}
}
