package gan_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// goldenCase is one training run whose final bits were recorded before
// the trainer became generic (issue 9): the refactor must not change a
// single bit of CGAN or DCGAN training.
type goldenCase struct {
	name      string
	cfg       models.Config
	policy    string // preset, then optional settings after a space
	biasEvery int
	steps     int
	want      string // sha256 of the parameters and Adam moments, by name
}

var goldenCases = []goldenCase{
	{"cgan-fp32", tinyCGAN(), "fp32", 0, 4, ""},
	{"cgan-posit8+-biases", tinyCGAN(), "posit8+", 2, 4, ""},
	{"cgan-posit8+t", tinyCGAN(), "posit8+t", 0, 3, ""},
	{"cgan-posit8-quire", tinyCGAN(), "posit8-quire", 0, 3, ""},
	{"cgan-posit8-per-op", tinyCGAN(), "posit8-per-op", 0, 2, ""},
	{"cgan-posit8+-stochastic", tinyCGAN(), "posit8+ rounding=stochastic", 0, 3, ""},
	{"cgan-fp8-ibm", tinyCGAN(), "fp8-ibm", 0, 3, ""},
	{"dcgan-fp32", tinyDCGAN(), "fp32", 0, 3, ""},
	{"dcgan-posit8+-biases", tinyDCGAN(), "posit8+", 2, 4, ""},
	{"dcgan-fp16", tinyDCGAN(), "fp16", 0, 3, ""},
	{"cgan28-posit8+", models.Config{Arch: models.CGAN, ZDim: 100, Classes: 2, Channels: 1, Height: 28, Width: 28, Features: 32}, "posit8+", 1, 2, ""},
	{"dcgan28-posit8+", models.Config{Arch: models.DCGAN, ZDim: 16, Channels: 1, Height: 28, Width: 28, Features: 8}, "posit8+", 1, 2, ""},
	{"dcgan16-rgb-fp32", models.Config{Arch: models.DCGAN, ZDim: 16, Channels: 3, Height: 16, Width: 16, Features: 8}, "fp32", 0, 2, ""},
	{"cgan-mxfp8", tinyCGAN(), "mxfp8", 0, 3, ""},
	{"dcgan28-mxfp8", models.Config{Arch: models.DCGAN, ZDim: 16, Channels: 1, Height: 28, Width: 28, Features: 8}, "mxfp8", 1, 2, ""},
}

func TestGoldenBits(t *testing.T) {
	want := readGolden(t)
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			got, stats := goldenRun(t, c)
			if w, ok := want[c.name]; !ok {
				t.Errorf("no recorded hash; got %s (%s)", got, stats)
			} else if got != w {
				t.Errorf("bits changed: hash %s, recorded %s (%s)", got, w, stats)
			}
		})
	}
}

// goldenRun trains c and hashes every parameter and Adam moment, in the
// order of their names, with the last step's losses.
func goldenRun(t *testing.T, c goldenCase) (string, string) {
	t.Helper()
	ds := toyData(t, 40, c.cfg.Height, c.cfg.Channels)
	tr := newTrainer(t, c.cfg, ds, gan.Options{Policy: policyWith(t, c.policy), Batch: 16, Seed: 11, BiasEvery: c.biasEvery})
	var st gan.StepStats
	var err error
	for i := 0; i < c.steps; i++ {
		if st, err = tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	h := sha256.New()
	hashTensors(h, goldenTensors(tr))
	fmt.Fprintf(h, "D %x G %x", math.Float64bits(st.Losses[0]), math.Float64bits(st.Losses[1]))
	return hex.EncodeToString(h.Sum(nil))[:32], fmt.Sprintf("D %.6g G %.6g", st.Losses[0], st.Losses[1])
}

// hashTensors writes every tensor to h, in the order of their names: the
// name, the length and the values' bits.
func hashTensors(h io.Writer, tensors map[string][]float32) {
	var buf [4]byte
	for _, n := range slices.Sorted(maps.Keys(tensors)) {
		fmt.Fprintf(h, "%s:%d;", n, len(tensors[n]))
		for _, v := range tensors[n] {
			binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
			h.Write(buf[:])
		}
	}
}

// goldenTensors returns the parameters and Adam moments of tr by name.
func goldenTensors(tr *gan.Trainer) map[string][]float32 {
	m := map[string][]float32{}
	for _, g := range tr.Nets().Groups {
		a := tr.Adam(g.Name)
		for i, p := range g.Net.Params() {
			m[p.Name] = p.Data()
			m["adam.m/"+p.Name], m["adam.v/"+p.Name] = a.M[i], a.V[i]
		}
	}
	return m
}

func readGolden(t *testing.T) map[string]string {
	f, err := os.Open("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && !strings.HasPrefix(k, "#") {
			m[k] = v
		}
	}
	return m
}

// TestStepBitsAnyCores trains the full-size default CGAN and a 28×28
// DCGAN (batch 64, whose products, element-wise passes and Adam are split
// across goroutines when there are several processors) with one
// processor and with several, and wants the same bits: splitting work
// must never change a result.
func TestStepBitsAnyCores(t *testing.T) {
	if testing.Short() {
		t.Skip("trains full-size models")
	}
	cgan, dcgan := mnistConfig(t, models.CGAN, 2), mnistConfig(t, models.DCGAN, 0)
	ds := toyData(t, 128, 28, 1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct {
		name   string
		cfg    models.Config
		policy string
	}{{"cgan", cgan, "fp32"}, {"cgan", cgan, "posit8+"}, {"dcgan", dcgan, "fp32"}} {
		hash := map[int]string{}
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			tr := newTrainer(t, c.cfg, ds, gan.Options{Policy: mustPolicy(t, c.policy), Batch: 64, Seed: 5})
			for i := 0; i < 2; i++ {
				if _, err := tr.TrainStep(); err != nil {
					t.Fatal(err)
				}
			}
			h := sha256.New()
			hashTensors(h, goldenTensors(tr))
			hash[procs] = hex.EncodeToString(h.Sum(nil))
		}
		if hash[1] != hash[2] || hash[1] != hash[4] {
			t.Errorf("%s %s: bits depend on GOMAXPROCS: %v", c.name, c.policy, hash)
		}
	}
}

// TestStepAllocs: in steady state a training step of the default CGAN
// allocates only the figures it returns (StepStats' four slices), give or
// take a pooled buffer refilled after a garbage collection.
func TestStepAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a full-size model")
	}
	tr := newTrainer(t, mnistConfig(t, models.CGAN, 2), toyData(t, 128, 28, 1), gan.Options{Policy: mustPolicy(t, "posit8+"), Batch: 64, Seed: 5})
	step := func() {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	step()
	// A collection empties the buffer pools; start right after one, so
	// that none falls in the measured steps (which allocate too little
	// to cause one).
	runtime.GC()
	if n := testing.AllocsPerRun(10, step); n > 8 {
		t.Errorf("%v allocations per step, want at most 8", n)
	}
}
