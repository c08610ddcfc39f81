package main

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/policy"
)

// lenetCmd groups the LeNet-5 feature-network commands.
func lenetCmd() *command {
	return &command{name: "lenet", summary: "train and test the LeNet-5 feature networks of FID (LeNet-MNIST, LeNet-Fashion)", sub: []*command{
		{name: "train", usage: "[--dataset mnist] [--policy fp32] [--epochs 5] [--seed 1] [--bias-every N] [--out FILE]",
			summary: "train a LeNet-5 classifier and report its test accuracy\n\n" +
				"Every dot product (weights, activations, outputs, errors, weight gradients of conv1..conv3,\n" +
				"fc1, fc2) rounds as --policy says: a preset, a .toml file, or a single format such as\n" +
				"posit(16,2), meaning that format for every role. Pooling, tanh and the loss are float32.\n" +
				"Training runs on the GAN trainer: its Adam (β1 0.9, β2 0.999), the policy's loss scaling and,\n" +
				"with --bias-every, exponent-bias re-estimation.\n" +
				"--out saves the weights for 'positgan eval fid --features lenet:FILE'.",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				f := &lenetFlags{}
				fs.StringVar(&f.dataset, "dataset", "mnist", "mnist, fashion-mnist, an IDX file or folder, or a folder of images (brought to 1x28x28)")
				fs.StringVar(&f.policy, "policy", "fp32", "quantization policy: preset, .toml file, or one format for every role (posit(16,2))")
				fs.IntVar(&f.epochs, "epochs", 5, "passes over the training set")
				fs.IntVar(&f.batch, "batch", 64, "batch size")
				fs.Float64Var(&f.lr, "lr", 1e-3, "Adam learning rate")
				fs.Uint64Var(&f.seed, "seed", 1, "seed of the initial weights, the batch order and stochastic rounding")
				fs.IntVar(&f.biasEvery, "bias-every", 0, "re-estimate exponent biases from histograms every N steps (0: keep the policy's)")
				fs.IntVar(&f.limit, "limit", 0, "train on the first N training images only (0: all)")
				fs.StringVar(&f.out, "out", "", "write the trained network to this .safetensors file")
				fs.StringVar(&f.name, "name", "", "network name used in metric names (default: LeNet-MNIST or LeNet-Fashion with the --out file name, so that its FIDs are not taken for the shipped network's)")
				return func(args []string, io stdio) error {
					if len(args) != 0 {
						return usagef("unexpected arguments %q", args)
					}
					return runLenetTrain(f, io)
				}
			}},
		{name: "test", usage: "[--features lenet-mnist] [--dataset mnist]",
			summary: "report the test accuracy of a LeNet feature network (shipped or from a file)",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				feat := fs.String("features", "lenet-mnist", "lenet-mnist, lenet-fashion, or lenet:FILE")
				ds := fs.String("dataset", "mnist", "data set whose test split to classify")
				return func(args []string, io stdio) error {
					if len(args) != 0 {
						return usagef("unexpected arguments %q", args)
					}
					return runLenetTest(*feat, *ds, io)
				}
			}},
	}}
}

type lenetFlags struct {
	dataset, policy, out, name string
	epochs, batch, limit       int
	biasEvery                  int
	lr                         float64
	seed                       uint64
}

// lenetPolicy parses a policy: a preset, a file, or one format name for
// every tensor role of every layer (see policy.Parse).
func lenetPolicy(s string) (*policy.Policy, error) {
	p, err := policy.Parse(s)
	if err != nil {
		return nil, usagef("--policy %s: %v", s, err)
	}
	return p, nil
}

func runLenetTrain(f *lenetFlags, io stdio) error {
	if err := cmp.Or(checkInts(1, intFlag{"epochs", f.epochs}, intFlag{"batch", f.batch}),
		checkInts(0, intFlag{"limit", f.limit}, intFlag{"bias-every", f.biasEvery})); err != nil {
		return err
	}
	if !(f.lr > 0) || math.IsInf(f.lr, 0) {
		return usagef("--lr %v: must be positive and finite", f.lr)
	}
	pol, err := lenetPolicy(f.policy)
	if err != nil {
		return err
	}
	if f.out != "" { // fail now, not after the training
		if err := wantExt("out", f.out, ".safetensors"); err != nil {
			return err
		}
		if err := checkOutFile("out", f.out, true); err != nil {
			return err
		}
	}
	run := featnet.LeNetRun{Dataset: f.dataset, Policy: pol, Limit: f.limit, Name: f.name, Out: f.out, Command: lenetCommand(f),
		Options: featnet.TrainOptions{Epochs: f.epochs, Batch: f.batch, LR: f.lr, Seed: f.seed, BiasEvery: f.biasEvery}}
	t, err := run.Prepare()
	if err != nil {
		return err
	}
	fmt.Fprintf(io.out, "lenet: %s, %s, policy %s, %s, batch %d, lr %g, seed %d\n",
		f.dataset, count(t.TrainSet.Len(), "training images"), pol.Name, count(f.epochs, "epochs"), f.batch, f.lr, f.seed)
	start := time.Now()
	var trained time.Duration // the training's, not the test's
	acc, err := t.Train(func(epoch int, loss float64) {
		trained = time.Since(start)
		fmt.Fprintf(io.out, "epoch %d/%d: mean loss %.4f (%s)\n", epoch, f.epochs, loss, trained.Round(time.Second))
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(io.out, "test accuracy %.2f%% (%d images, policy %s), training took %s\n",
		100*acc, t.TestSet.Len(), pol.Name, trained.Round(time.Second))
	if f.out == "" {
		return nil
	}
	if err := t.Net.Save(f.out); err != nil {
		return err
	}
	fmt.Fprintf(io.out, "wrote %s\n", f.out)
	return nil
}

func lenetCommand(f *lenetFlags) string {
	args := []string{"positgan lenet train", "--dataset", f.dataset, "--policy", f.policy,
		"--epochs", strconv.Itoa(f.epochs), "--batch", strconv.Itoa(f.batch),
		"--lr", strconv.FormatFloat(f.lr, 'g', -1, 64), "--seed", strconv.FormatUint(f.seed, 10)}
	if f.limit > 0 {
		args = append(args, "--limit", strconv.Itoa(f.limit))
	}
	if f.biasEvery > 0 {
		args = append(args, "--bias-every", strconv.Itoa(f.biasEvery))
	}
	if f.name != "" {
		args = append(args, "--name", f.name)
	}
	return strings.Join(args, " ")
}

func runLenetTest(spec, dataset string, io stdio) error {
	net, err := loadLeNet(spec) // an unknown name is a usage error
	if err != nil {
		return err
	}
	test, err := featnet.LoadLeNetData(dataset, datasets.Test)
	if err != nil {
		return err
	}
	acc, err := net.Accuracy(test)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.out, "%s on %s test: accuracy %.2f%% (%d images)\n", net.Name, dataset, 100*acc, test.Len())
	return nil
}
