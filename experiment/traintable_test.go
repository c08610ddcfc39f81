package experiment_test

import (
	"strings"
	"testing"
	"time"

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
)

// The table has a column per update and metric of the run that has most,
// and "-" where a run measured nothing.
func TestWriteTrainTable(t *testing.T) {
	runs := []*experiment.TrainRun{{NamedPolicy: experiment.NamedPolicy{Label: "fp32"}}, {NamedPolicy: experiment.NamedPolicy{Label: "posit8+"}}}
	sums := []gan.Summary{
		{FirstStep: 0, LastStep: 10, Elapsed: 5 * time.Second, Updates: []string{"D", "G"}, MeanLosses: []float64{0.5, 1.25},
			Metrics: []string{"acc"}, MeanMetrics: []float64{0.75}, Skipped: []int{1, 2}, Samples: "a/samples.png"},
		{FirstStep: 10, LastStep: 10, Updates: []string{"D", "G"}, Metrics: []string{"acc"}, Samples: "b/samples.png"},
	}
	var b strings.Builder
	if err := experiment.WriteTrainTable(&b, runs, sums); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for i, want := range []string{
		"",
		"policy           steps    s/step   D loss   G loss      acc  skipped  samples",
		"fp32                10     0.500    0.500    1.250     0.75        3  a/samples.png",
		"posit8+             10     0.000        -        -        -        0  b/samples.png",
	} {
		if i >= len(lines) || lines[i] != want {
			t.Errorf("line %d:\n%q\nwant\n%q", i, lines[min(i, len(lines)-1)], want)
		}
	}
}
