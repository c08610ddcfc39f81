package experiment

import (
	"testing"
	"time"
)

func TestAllRunsETA(t *testing.T) {
	for _, tc := range []struct {
		done, left, later int
		el                time.Duration
		want              string
	}{
		{10, 90, 100, 10 * time.Second, ", all 3m10s"}, // 1 s/step, 190 steps to go
		{10, 0, 50, 5 * time.Second, ", all 25s"},
		{10, 90, 0, 10 * time.Second, ""}, // the last run: its own eta says it
		{0, 100, 100, 0, ""},              // no pace yet
	} {
		if got := AllRunsETA(tc.done, tc.left, tc.later, tc.el, ", all "); got != tc.want {
			t.Errorf("AllRunsETA(%d, %d, %d, %v) = %q, want %q", tc.done, tc.left, tc.later, tc.el, got, tc.want)
		}
	}
}
