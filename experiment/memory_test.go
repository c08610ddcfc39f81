package experiment_test

import (
	"testing"

	"github.com/positgan/positgan/experiment"
)

func TestParseMemory(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // 0: an error
	}{
		{"4G", 4096}, {"4Gi", 4096}, {"512M", 512}, {"512Mi", 512}, {"1M", 1},
		{"4", 0}, {"G", 0}, {"0G", 0}, {"-1M", 0}, {"1.5G", 0}, {"4T", 0}, {"2000000G", 0},
	} {
		got, err := experiment.ParseMemory(tc.in)
		if got != tc.want || (err != nil) != (tc.want == 0) {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
