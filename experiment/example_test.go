package experiment_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/positgan/positgan/experiment"
)

// A sweep of the CGAN on MNIST in three policies, three seeds each trains
// nine runs into out/compare (a run of 1500 steps takes a few minutes),
// logging to stderr. It prints the table of mean ± std over seeds that it
// also wrote to out/compare/results.md, then each run's FID. Run again,
// it skips the finished runs.
func ExampleCompare() {
	s := experiment.Sweep{
		Model: "cgan", Dataset: "mnist", Policies: []string{"fp32", "posit8+", "fp8-ibm"},
		Seeds: 3, FirstSeed: 1, Steps: 1500, Batch: 64, LR: 2e-4, CheckpointEvery: 250,
		N: 2000, EvalSeed: 1, // Features: lenet-mnist, the default for mnist
		Out: "out/compare", Log: os.Stderr,
	}
	t, err := experiment.Compare(context.Background(), s)
	if err != nil {
		log.Fatal(err)
	}
	if err := t.WriteMarkdown(os.Stdout); err != nil {
		log.Fatal(err)
	}
	for i, r := range t.Runs {
		fmt.Printf("%s: %s %.3g\n", r, t.Metric, t.Results[i].FID)
	}
}
