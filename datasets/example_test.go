package datasets_test

import (
	"fmt"
	"log"

	"github.com/positgan/positgan/datasets"
)

func ExampleLoad() {
	train, err := datasets.Load("mnist", datasets.Options{Split: datasets.Train})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(train.Name(), train.Len(), train.Shape(), train.NumClasses())
	for i := range 5 {
		fmt.Print(train.Label(i), " ")
	}
	fmt.Println()
	// Output:
	// mnist train 60000 1x28x28 10
	// 5 0 4 1 9
}

func ExampleLoader() {
	// Four 1×1×2 images with pixels 0 and 255, labels 0 to 3.
	pix := []uint8{0, 255, 0, 255, 0, 255, 0, 255}
	set, err := datasets.NewSet("tiny", datasets.Shape{C: 1, H: 1, W: 2}, pix, []int{0, 1, 2, 3}, nil)
	if err != nil {
		log.Fatal(err)
	}
	l, err := datasets.NewLoader(set, 2, 1) // batches of 2, seed 1
	if err != nil {
		log.Fatal(err)
	}
	images, labels := l.Next()
	fmt.Println(images, len(labels), l.BatchesPerEpoch())

	// Save the position; a loader restored from it serves the same batches.
	st := l.State()
	_, want := l.Next()
	want = append([]int(nil), want...)
	r, _ := datasets.NewLoader(set, 2, 0)
	if err := r.Restore(st); err != nil {
		log.Fatal(err)
	}
	_, got := r.Next()
	fmt.Println(fmt.Sprint(got) == fmt.Sprint(want))
	// Output:
	// [-1 1 -1 1] 2 2
	// true
}
