package datasets

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// srPackages maps the folders of SRPhotos' files to the Debian packages
// that install them.
var srPackages = []struct{ dir, pkg string }{
	{"/usr/lib/python3/dist-packages/skimage/", "python3-skimage"},
	{"/usr/share/doc/opencv-doc/", "opencv-doc"},
}

// SRPhotosMissing returns a one-line note of the photographs of SRPhotos
// that are not installed, and the packages that install them; "" if all
// are. Training goes on with the photographs installed, so a missing
// package would otherwise show only in a weaker network, or when upscale
// looks for the held-out images.
func SRPhotosMissing() string {
	return srMissing(func(path string) bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

func srMissing(installed func(string) bool) string {
	var pkgs []string
	missing := func(files []string) int {
		n := 0
		for _, f := range files {
			if installed(f) {
				continue
			}
			n++
			for _, p := range srPackages {
				if strings.HasPrefix(f, p.dir) && !slices.Contains(pkgs, p.pkg) {
					pkgs = append(pkgs, p.pkg)
				}
			}
		}
		return n
	}
	train, test := missing(SRTrainFiles), missing(SRTestFiles)
	if train == 0 && test == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d of %d training photographs and %d of %d held-out ones are not installed (apt-get install %s)",
		SRPhotos, train, len(SRTrainFiles), test, len(SRTestFiles), strings.Join(pkgs, " "))
}
