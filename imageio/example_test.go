package imageio_test

import (
	"fmt"

	"github.com/positgan/positgan/imageio"
)

// Open reads a file into the pixels PIL's convert("RGB") gives: here a
// 4:2:0 JPEG, whose chroma libjpeg upsamples with its triangle filter.
func ExampleOpen() {
	img, err := imageio.Open("testdata/pil/pil_37x29_420_q75.jpg", imageio.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%T %v %v\n", img, img.Bounds().Size(), img.At(10, 10))
	// Output: *image.NRGBA (37,29) {72 112 181 255}
}
