package experiment_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
)

// writeToyIDX writes n side×side toy images (the two classes of toyData)
// as an IDX file, which serves as both splits.
func writeToyIDX(t *testing.T, n, side int) string {
	t.Helper()
	s := deployToyData(t, n, side)
	im := binary.BigEndian.AppendUint32(nil, 0x803)
	for _, d := range []int{n, side, side} {
		im = binary.BigEndian.AppendUint32(im, uint32(d))
	}
	px := make([]float32, side*side)
	for i := range n {
		s.Image(px, i)
		for _, v := range px {
			im = append(im, byte(math.Round(float64(v+1)*127.5)))
		}
	}
	lb := binary.BigEndian.AppendUint32(nil, 0x801)
	lb = binary.BigEndian.AppendUint32(lb, uint32(n))
	for i := range n {
		lb = append(lb, byte(s.Label(i)))
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "toy-images-idx3-ubyte")
	if err := os.WriteFile(p, im, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "toy-labels-idx1-ubyte"), lb, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// DeployCompare makes the table's rows in order, each a deployed generator
// whose size is its exported file's, picks one selected setting per
// searched row, and writes the files.
func TestDeployCompare(t *testing.T) {
	c := trainedCGAN(t)
	var log bytes.Buffer
	dataset := writeToyIDX(t, 24, 8)
	cmp, err := experiment.DeployCompare(context.Background(), c, experiment.DeployOptions{
		Dataset: dataset, N: 12, SearchN: 6, Bits: []int{4}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range cmp.Rows {
		labels = append(labels, strings.Fields(r.Label)[0])
	}
	want := []string{"FP32", "P8", "P8+", "P8+T", "FP8", "P4", "P4+", "P4+T", "FP4"}
	if !slices.Equal(labels, want) {
		t.Fatalf("rows %v, want %v", labels, want)
	}
	for _, r := range cmp.Rows {
		m, err := deploy.Export(c, r.Policy)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := m.Bytes()
		if len(b) != r.Bytes {
			t.Errorf("%s: %d bytes, its export has %d", r.Label, r.Bytes, len(b))
		}
		if !(r.FID >= 0) || r.Zero < 0 || r.Zero > 1 || r.Saturated < 0 || r.Saturated > 1 {
			t.Errorf("%s: FID %g, zero %g, saturated %g", r.Label, r.FID, r.Zero, r.Saturated)
		}
		if strings.HasSuffix(r.Label, "+T") != (r.Tanh != "") || (strings.Contains(r.Label, "+") || r.Label[:2] == "FP" && r.Bits < 32) != (r.WeightBias != nil) {
			t.Errorf("%s: tanh %q, biases %v", r.Label, r.Tanh, r.WeightBias)
		}
	}
	checkFiguresFromCheckpoint(t, c, cmp, dataset)
	if !math.IsInf(cmp.Rows[0].PSNR, 1) || !(cmp.Rows[1].PSNR > 0) || math.IsInf(cmp.Rows[1].PSNR, 0) {
		t.Errorf("PSNR against FP32: FP32 %g, P8 %g; want +Inf and a finite value", cmp.Rows[0].PSNR, cmp.Rows[1].PSNR)
	}
	if p4, p8, fp32 := cmp.Rows[5].Bytes, cmp.Rows[1].Bytes, cmp.Rows[0].Bytes; !(p4 < p8 && p8 < fp32) {
		t.Errorf("sizes P4 %d, P8 %d, FP32 %d", p4, p8, fp32)
	}
	selected := map[string]int{}
	for _, k := range cmp.Candidates {
		if k.Selected {
			selected[k.Row]++
		}
	}
	for _, row := range []string{"P8+", "FP8", "P4+", "FP4"} {
		if selected[row] != 1 {
			t.Errorf("%s: %d selected candidates", row, selected[row])
		}
	}
	for _, i := range []int{4, 8} {
		if l := cmp.Rows[i].Label; !regexp.MustCompile(`^FP[48] e\dm\d$`).MatchString(l) {
			t.Errorf("best float row labelled %q, want FPb eXmY", l)
		}
	}
	if n := cmp.Rows[8].Candidates; n < len(deploy.FloatCandidates(4)) {
		t.Errorf("FP4 chosen among %d candidates", n)
	}
	if !strings.Contains(log.String(), "search FP4: float(2,1)") {
		t.Errorf("log:\n%s", log.String())
	}

	dir := t.TempDir()
	if _, err := cmp.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "deploy.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := csv.NewReader(f).ReadAll()
	if err != nil || len(lines) != 1+len(cmp.Rows) {
		t.Errorf("deploy.csv: %d lines, %v", len(lines), err)
	}
	for _, l := range lines[1:] {
		// Go's and Python's float readers take every figure; FP32's PSNR
		// against itself is infinite, spelled as numfmt spells it.
		if _, err := strconv.ParseFloat(l[9], 64); err != nil {
			t.Errorf("deploy.csv row %s: fid %q: %v", l[1], l[9], err)
		}
		if l[1] == "FP32" && l[11] != "inf" {
			t.Errorf("deploy.csv row FP32: psnr_vs_fp32_db %q, want inf", l[11])
		}
	}
	for _, name := range []string{"fid.png", "grids.png", "grids/FP32.png", "grids/P4+T.png"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			_, err = png.Decode(bytes.NewReader(data))
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "deploy.md"))
	if !strings.Contains(string(md), "| FP32 | float32 | – |") || !strings.Contains(string(md), "no seeds: no significance test") {
		t.Errorf("deploy.md:\n%s", md)
	}
}

// checkFiguresFromCheckpoint recomputes every row's FID and PSNR by
// another path than DeployCompare's: the checkpoint's own generator under the
// row's policy (models.Load and gan.GenerateSet, as training's FID
// makes its images) instead of the exported model, against the LeNet-MNIST
// statistics of N test images drawn with the table's seed. Deployment is
// bit-identical to the checkpoint (TestGenerateBitIdentical), so the
// figures must be equal.
func checkFiguresFromCheckpoint(t *testing.T, c *ckpt.Checkpoint, cmp *experiment.DeployTable, dataset string) {
	t.Helper()
	ext, err := featnet.Load("lenet-mnist")
	if err != nil {
		t.Fatal(err)
	}
	stats := func(ds datasets.Dataset) eval.Stats {
		x, err := featnet.FeaturesOf(ext, ds, 100)
		if err != nil {
			t.Fatal(err)
		}
		s, err := eval.StatsOf(x)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	test, err := datasets.Load(dataset, datasets.Options{Split: datasets.Test, Height: 8, Width: 8, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	real, err := datasets.Sample(test, cmp.N, cmp.Seed)
	if err != nil {
		t.Fatal(err)
	}
	ref := stats(real)
	var pix32 []float32
	for _, r := range cmp.Rows {
		nets, _, err := models.Load(c, r.Policy)
		if err != nil {
			t.Fatal(err)
		}
		g, err := gan.GenerateSet(nets, cmp.N, cmp.Seed, 100, gan.SampleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pix32 == nil {
			pix32 = g.Images() // the FP32 row comes first
		}
		if math.IsInf(r.FID, 1) {
			t.Errorf("%s: FID %g (%s) on a toy generator", r.Label, r.FID, r.Note)
			continue
		}
		fid, err := eval.FrechetDistance(stats(g), ref)
		if err != nil {
			t.Fatal(err)
		}
		if fid != r.FID {
			t.Errorf("%s: FID %v, the checkpoint's generator under its policy %v", r.Label, r.FID, fid)
		}
		psnr, err := eval.PSNR(g.Images(), pix32, 2)
		if err != nil {
			t.Fatal(err)
		}
		if psnr != r.PSNR {
			t.Errorf("%s: PSNR against FP32 %v, from the checkpoint %v", r.Label, r.PSNR, psnr)
		}
	}
}

func TestDeployOptions(t *testing.T) {
	c := trainedCGAN(t)
	for _, tc := range []struct {
		o    experiment.DeployOptions
		want string
	}{
		{experiment.DeployOptions{Bits: []int{8}}, "width 8 bits"},
		{experiment.DeployOptions{N: 1}, "at least 2 images"},
		{experiment.DeployOptions{Accum: "sideways"}, "accumulation"},
		{experiment.DeployOptions{Features: "nosuch"}, "nosuch"},
	} {
		if _, err := experiment.DeployCompare(context.Background(), c, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error with %q", tc.o, err, tc.want)
		}
	}
}

// TestDeployOptionsCheck: Check names the field DeployCompare would refuse,
// without loading anything.
func TestDeployOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		o      experiment.DeployOptions
		option string // "" for no error
	}{
		{experiment.DeployOptions{}, ""},
		{experiment.DeployOptions{N: 2, SearchN: 2, Bits: []int{3, 7}, Accum: "quire"}, ""},
		{experiment.DeployOptions{N: 1}, "N"},
		{experiment.DeployOptions{N: -5}, "N"},
		{experiment.DeployOptions{SearchN: 1}, "SearchN"},
		{experiment.DeployOptions{Bits: []int{6, 2}}, "Bits"},
		{experiment.DeployOptions{Accum: "sideways"}, "Accum"},
	} {
		err := tc.o.Check()
		var oe *experiment.DeployOptionError
		switch {
		case tc.option == "" && err != nil:
			t.Errorf("%+v: %v, want no error", tc.o, err)
		case tc.option != "" && (!errors.As(err, &oe) || oe.Option != tc.option):
			t.Errorf("%+v: %v, want an *OptionError for %s", tc.o, err, tc.option)
		}
	}
}

// deployToyData returns n side×side images in two classes (a bright left
// or top half, with noise), as deploy's tests train on.
func deployToyData(t testing.TB, n, side int) *datasets.Set {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	sh := datasets.Shape{C: 1, H: side, W: side}
	pix := make([]uint8, n*sh.Size())
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 2
		for y := 0; y < side; y++ {
			for x := 0; x < side; x++ {
				v := rng.IntN(40)
				if (labels[i] == 0 && x < side/2) || (labels[i] == 1 && y < side/2) {
					v += 200
				}
				pix[i*sh.Size()+y*side+x] = uint8(v)
			}
		}
	}
	s, err := datasets.NewSet("toy", sh, pix, labels, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var deployCkpt struct {
	sync.Mutex
	c *ckpt.Checkpoint
}

// trainedCGAN returns a float32 checkpoint of a small CGAN trained for a
// few steps with exponent biases re-estimated every step, so that
// weights, running statistics and biases are not at their initial values.
func trainedCGAN(t testing.TB) *ckpt.Checkpoint {
	t.Helper()
	deployCkpt.Lock()
	defer deployCkpt.Unlock()
	if deployCkpt.c != nil {
		return deployCkpt.c
	}
	cfg := models.Config{Arch: models.CGAN, ZDim: 8, Classes: 2, Channels: 1, Height: 8, Width: 8, Features: 8}
	m, err := models.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := gan.NewTrainer(m, []datasets.Dataset{deployToyData(t, 8, cfg.Height)}, gan.Options{Batch: 4, Seed: 3, BiasEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	if deployCkpt.c, err = tr.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	return deployCkpt.c
}
