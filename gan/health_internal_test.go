package gan

import (
	"strings"
	"testing"
)

// The alarms: skipping over the window, saturation after saturatedSteps
// steps in a row, each warned about once, and cleared when the figures
// recover.
func TestHealthAlarms(t *testing.T) {
	tests := []struct {
		name       string
		step       func(i int) StepStats
		steps      int
		wantStatus string
		wantWarn   int // the step that raises the warning (0: none)
	}{
		{"healthy", func(int) StepStats { return StepStats{Skipped: []bool{false, false}, Metrics: []float64{0.7, 0.3}} }, 300, StatusOK, 0},
		{"all skipped", func(int) StepStats { return StepStats{Skipped: []bool{true, false}, Metrics: []float64{0.7, 0.3}} }, 50, StatusSkipping, minHealthSteps},
		{"a few skipped", func(i int) StepStats {
			return StepStats{Skipped: []bool{i%3 == 0, false}, Metrics: []float64{0.7, 0.3}}
		}, 300, StatusOK, 0},
		{"saturated", func(int) StepStats { return StepStats{Skipped: []bool{false, false}, Metrics: []float64{0.9999, 1e-5}} }, 150, StatusSaturated, saturatedSteps},
		{"saturated then recovered", func(i int) StepStats {
			if i > 120 {
				return StepStats{Skipped: []bool{false, false}, Metrics: []float64{0.8, 0.2}}
			}
			return StepStats{Skipped: []bool{false, false}, Metrics: []float64{1, 0}}
		}, 150, StatusOK, saturatedSteps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHealth([]string{"d_real", "d_fake"})
			status, warnAt := "", 0
			for i := 1; i <= tt.steps; i++ {
				st := tt.step(i)
				st.Step = i
				var w []string
				status, w = h.observe(st, []string{"D", "G"})
				if len(w) > 0 {
					if warnAt != 0 {
						t.Fatalf("second warning at step %d: %s", i, w)
					}
					warnAt = i
				}
			}
			if status != tt.wantStatus || warnAt != tt.wantWarn {
				t.Errorf("status %q warned at %d, want %q at %d", status, warnAt, tt.wantStatus, tt.wantWarn)
			}
		})
	}
}

func TestWithStatus(t *testing.T) {
	if got := withStatus("1,0,0.5,0.0123,1.500", "ok"); got != "1,0,0.5,ok,0.0123,1.500" {
		t.Errorf("withStatus = %q", got)
	}
	if got := withStatus("step,epoch,step_seconds,elapsed_seconds", "status"); !strings.HasSuffix(got, ",status,step_seconds,elapsed_seconds") {
		t.Errorf("withStatus(header) = %q", got)
	}
}

// TestWindow checks the running count of the last healthWindow flags
// against counting them again at every step.
func TestWindow(t *testing.T) {
	var w window
	var all []bool
	for i := 0; i < 3*healthWindow+7; i++ {
		f := (i*i+3*i)%7 < 3 || (i > healthWindow && i < 2*healthWindow)
		w.add(f)
		all = append(all, f)
		last := all[max(0, len(all)-healthWindow):]
		n := 0
		for _, v := range last {
			if v {
				n++
			}
		}
		if w.len != len(last) || w.count != n {
			t.Fatalf("after %d flags: window holds %d with %d set, want %d with %d", i+1, w.len, w.count, len(last), n)
		}
	}
}
