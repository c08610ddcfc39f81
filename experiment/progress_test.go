package experiment

import (
	"strings"
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

// LogProgress writes a line every logEvery steps and at the last: 2
// steps of 1.5 s since step 10, so 0.750 s/step and 18 steps (13.5 s)
// to go, then 100 steps of later runs (75 s more).
func TestLogProgress(t *testing.T) {
	var b strings.Builder
	log := LogProgress(&b, "fp32", []string{"d_loss", "g_loss", "d_real", "scale"}, 10, 30, 4, 100)
	st := StepStats{Step: 11, Losses: []float64{0.5, 1.25}, Metrics: []float64{0.875}, Scales: []float64{1024}}
	log(st, time.Second) // 11 is no multiple of 4: nothing
	st.Step = 12
	log(st, 1500*time.Millisecond)
	want := "fp32 step 12/30  d_loss 0.5  g_loss 1.25  d_real 0.875  scale 1024  0.750 s/step  eta 14s, all runs 1m29s\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	LogProgress(&b, "x", nil, 0, 30, 0, 0)(StepStats{Step: 30}, time.Second)
	if b.Len() != 0 {
		t.Errorf("logEvery 0 logged %q", b.String())
	}
}
