package experiment

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// LogProgress returns a per-step callback (gan.RunOptions.OnStep, a
// Sweep's Progress) that writes a line to w every logEvery steps and at
// the last step (none if logEvery is 0): the run's name, the step, the
// step's figures named by cols (gan.Trainer.LogColumns: losses, metrics,
// loss scales), the time per step and the ETA of the run and, when later
// steps of other runs follow (AllRunsETA), of all of them. start is the
// step the run continues from and steps its last step.
func LogProgress(w io.Writer, name string, cols []string, start, steps, logEvery, later int) func(StepStats, time.Duration) {
	return func(st StepStats, el time.Duration) {
		if logEvery == 0 || (st.Step%logEvery != 0 && st.Step != steps) {
			return
		}
		done := st.Step - start
		eta := time.Duration(float64(el) / float64(done) * float64(steps-st.Step))
		var b strings.Builder
		fmt.Fprintf(&b, "%s step %d/%d", name, st.Step, steps)
		vals := append(append(append([]float64{}, st.Losses...), st.Metrics...), st.Scales...)
		for i, v := range vals {
			fmt.Fprintf(&b, "  %s %.4g", cols[i], v)
		}
		fmt.Fprintf(&b, "  %.3f s/step  eta %s%s\n", el.Seconds()/float64(done), eta.Round(time.Second),
			AllRunsETA(done, steps-st.Step, later, el, ", all runs "))
		io.WriteString(w, b.String())
	}
}

// AllRunsETA returns prefix and the time left to train the left steps of
// this run and the later steps of the runs after it, at this run's pace
// (done steps in el): the ETA of a whole training in several policies or
// of a sweep, which would otherwise only show run by run. It returns ""
// when no run follows or no step is done. The runs after this one may be
// faster or slower (fp32 against an emulated posit), so it is an
// estimate that improves run by run.
func AllRunsETA(done, left, later int, el time.Duration, prefix string) string {
	if later <= 0 || done <= 0 {
		return ""
	}
	eta := time.Duration(float64(el) / float64(done) * float64(left+later))
	return prefix + eta.Round(time.Second).String()
}
