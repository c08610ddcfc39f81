package experiment

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
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

// Progress returns the per-step callback of a run as positgan train and
// compare show it: on a terminal (IsTerminal(w)) a progress bar written
// to w, its description the run's name, the step's losses and the ETA of
// all runs, cleared when the run ends; elsewhere a line every logEvery
// steps (LogProgress, whose arguments these are).
func Progress(w io.Writer, name string, cols []string, start, steps, logEvery, later int) func(StepStats, time.Duration) {
	if !IsTerminal(w) {
		return LogProgress(w, name, cols, start, steps, logEvery, later)
	}
	desc := name
	if start > 0 {
		// The count is this invocation's: say where it started.
		desc = fmt.Sprintf("%s steps %d-%d", name, start+1, steps)
	}
	bar := progressbar.NewOptions(steps-start,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	return func(st StepStats, el time.Duration) {
		var b strings.Builder
		b.WriteString(desc) // the step is the bar's count
		for i, l := range st.Losses {
			fmt.Fprintf(&b, "  %s %.3f", cols[i], l)
		}
		b.WriteString(AllRunsETA(st.Step-start, steps-st.Step, later, el, "  all runs eta "))
		bar.Describe(b.String())
		bar.Add(1)
	}
}

// IsTerminal reports whether w is a terminal, where Progress draws a bar.
func IsTerminal(w io.Writer) bool {
	fd, ok := w.(*os.File)
	return ok && term.IsTerminal(int(fd.Fd()))
}
