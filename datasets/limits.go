package datasets

import "fmt"

// MaxSetBytes bounds the pixels a data set holds in memory once brought to
// the size and channels asked for (Load, LoadFolder): 4 GiB, so that
// MNIST's 60000 images fit up to 256×256 in gray (3.7 GiB), while asking
// for 1024×1024 (63 GB) is refused before anything is resized.
const MaxSetBytes = 4 << 30

// checkSetSize refuses n images of shape sh that would hold more than
// MaxSetBytes.
func checkSetSize(name string, n int, sh Shape) error {
	if b := int64(n) * int64(sh.Size()); b > MaxSetBytes {
		return fmt.Errorf("datasets: %s: %d images of %v would take %.1f GiB, more than the %d GiB a data set may hold (datasets.MaxSetBytes); ask for smaller images",
			name, n, sh, float64(b)/(1<<30), MaxSetBytes>>30)
	}
	return nil
}
