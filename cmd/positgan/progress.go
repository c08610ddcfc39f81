package main

import (
	"time"
)

// allRunsETA returns prefix and the time left to train the left steps of
// this run and the later steps of the runs after it in this invocation,
// at this run's pace (done steps in el): the ETA of the whole command,
// which a train of several policies or a compare would otherwise only
// show run by run. It returns "" when no run follows or no step is done.
// The runs after this one may be faster or slower (fp32 against an
// emulated posit), so it is an estimate that improves run by run.
func allRunsETA(done, left, later int, el time.Duration, prefix string) string {
	if later <= 0 || done <= 0 {
		return ""
	}
	eta := time.Duration(float64(el) / float64(done) * float64(left+later))
	return prefix + eta.Round(time.Second).String()
}
