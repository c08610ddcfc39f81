package experiment

import (
	"bufio"
	"fmt"
	"io"

	"github.com/positgan/positgan/gan"
)

// WriteTrainTable writes the table of the runs' summaries (gan.Summary,
// sums[i] of runs[i]) as positgan train prints it after several
// policies: per run its step, time per step, mean losses and metrics,
// skipped updates and sample grid; "-" where a run measured nothing
// (it was trained already).
func WriteTrainTable(w io.Writer, runs []*TrainRun, sums []gan.Summary) error {
	bw := bufio.NewWriter(w)
	w = bw
	var s0 gan.Summary
	for _, s := range sums {
		if len(s.Updates) > len(s0.Updates) {
			s0 = s
		}
	}
	fmt.Fprintf(w, "\n%-14s %7s %9s", "policy", "steps", "s/step")
	for _, u := range s0.Updates {
		fmt.Fprintf(w, " %8s", u+" loss")
	}
	for _, m := range s0.Metrics {
		fmt.Fprintf(w, " %8s", m)
	}
	fmt.Fprintf(w, " %8s  %s\n", "skipped", "samples")
	for i, r := range runs {
		s := sums[i]
		n := max(s.LastStep-s.FirstStep, 1)
		fmt.Fprintf(w, "%-14s %7d %9.3f", r.Label, s.LastStep, s.Elapsed.Seconds()/float64(n))
		for i := range s0.Updates {
			if i < len(s.MeanLosses) {
				fmt.Fprintf(w, " %8.3f", s.MeanLosses[i])
			} else {
				fmt.Fprintf(w, " %8s", "-") // already trained: nothing measured
			}
		}
		for i := range s0.Metrics {
			if i < len(s.MeanMetrics) {
				fmt.Fprintf(w, " %8.2f", s.MeanMetrics[i])
			} else {
				fmt.Fprintf(w, " %8s", "-")
			}
		}
		skipped := 0
		for _, k := range s.Skipped {
			skipped += k
		}
		fmt.Fprintf(w, " %8d  %s\n", skipped, s.Samples)
	}
	fmt.Fprintln(w, "(losses and metrics: means over each run's last 100 steps, or all of them if fewer; s/step: wall time of this invocation)")
	return bw.Flush()
}
