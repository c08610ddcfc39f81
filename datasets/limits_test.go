package datasets

import (
	"strings"
	"testing"
)

// Resizing a whole data set to a size whose pixels pass MaxSetBytes is
// refused before anything is allocated (issue 29 item 8: MNIST at
// 1024×1024 is 63 GB).
func TestReshapeBounded(t *testing.T) {
	const n = 10000
	s, err := NewSet("small", Shape{C: 1, H: 2, W: 2}, make([]uint8, n*4), make([]int, n), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = reshape(s, Options{Height: 1024, Width: 1024}, 1)
	if err == nil || !strings.Contains(err.Error(), "datasets.MaxSetBytes") {
		t.Fatalf("reshape to 1024×1024: %v; want an error naming datasets.MaxSetBytes", err)
	}
	r, err := reshape(s, Options{Height: 4, Width: 4}, 1)
	if err != nil || r.Shape() != (Shape{C: 1, H: 4, W: 4}) {
		t.Errorf("reshape to 4×4: %v, %v", r.Shape(), err)
	}
}
