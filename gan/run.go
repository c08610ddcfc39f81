package gan

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/models"
)

// RunOptions say how long to train and what to write.
type RunOptions struct {
	// Dir receives log.csv, samples_<step>.png, samples.png and
	// checkpoint.safetensors. It must exist.
	Dir string
	// Steps is the step count to train up to (counting the steps of the
	// run a resumed trainer continues).
	Steps int
	// SampleEvery > 0 writes samples_<step>.png every so many steps;
	// CheckpointEvery > 0 rewrites checkpoint.safetensors every so many
	// steps, and with KeepCheckpoints also keeps checkpoint_<step>.safetensors.
	SampleEvery, CheckpointEvery int
	KeepCheckpoints              bool
	// GridImages is the number of images of the sample grids (default
	// 100 for conditional GANs, 10 per class; 64 otherwise).
	GridImages int
	// Meta is extra checkpoint metadata (such as the data set's name).
	Meta map[string]string
	// OnStep, if not nil, is called after every step.
	OnStep func(st StepStats, elapsed time.Duration)
}

// Summary reports a run.
type Summary struct {
	FirstStep, LastStep int           // steps done before and after the run
	Elapsed             time.Duration // wall time of the training steps
	SkippedD, SkippedG  int           // updates skipped for overflow
	// MeanDLoss, MeanGLoss, MeanDReal, MeanDFake: means over the last
	// (up to) 100 steps.
	MeanDLoss, MeanGLoss, MeanDReal, MeanDFake float64
	FinalScaleD, FinalScaleG                   float64
	Samples, Checkpoint, Log                   string
}

// ErrInterrupted is returned by Run when its context was cancelled: the
// step under way was finished and the checkpoint and samples written.
var ErrInterrupted = errors.New("gan: interrupted")

// logHeader is the first line of log.csv.
const logHeader = "step,epoch,d_loss,g_loss,d_real,d_fake,loss_scale_d,loss_scale_g,skipped_d,skipped_g,step_seconds,elapsed_seconds"

// Run trains until ro.Steps steps are done or ctx is cancelled, logging
// every step to Dir/log.csv and writing sample grids and checkpoints as
// ro says. When it ends, also on cancellation, it writes the final grid
// samples.png and checkpoint.safetensors.
func (t *Trainer) Run(ctx context.Context, ro RunOptions) (Summary, error) {
	sum := Summary{FirstStep: t.step, LastStep: t.step,
		Samples: filepath.Join(ro.Dir, "samples.png"), Checkpoint: filepath.Join(ro.Dir, "checkpoint.safetensors"),
		Log: filepath.Join(ro.Dir, "log.csv")}
	logf, err := openLog(sum.Log, t.step)
	if err != nil {
		return sum, err
	}
	defer logf.Close()
	w := bufio.NewWriter(logf)

	c := t.opt.Config
	n := ro.GridImages
	if n <= 0 {
		n = 64
		if c.Classes > 0 {
			n = 10 * c.Classes
		}
	}
	rows, cols := GridShape(c, n)
	z, labels := FixedNoise(c, t.opt.Seed, rows, cols)
	var sampler *Sampler
	var sampled *models.GAN
	grid := func(path string) error {
		if sampler == nil || sampled != t.m {
			if sampler, err = NewSampler(t.m, rows*cols); err != nil {
				return err
			}
			sampled = t.m
		}
		imgs := make([]float32, rows*cols*c.ImageSize())
		if err := sampler.Generate(imgs, z, labels); err != nil {
			return err
		}
		return WriteGrid(path, imgs, c, rows, cols)
	}
	save := func(path string) error {
		ck, err := t.Checkpoint()
		if err != nil {
			return err
		}
		for k, v := range ro.Meta {
			ck.Meta[k] = v
		}
		return ckpt.Save(path, ck)
	}

	var recent []StepStats
	start := time.Now()
	interrupted := false
	for t.step < ro.Steps {
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		t0 := time.Now()
		st, err := t.TrainStep()
		if err != nil {
			w.Flush()
			return sum, err
		}
		dt := time.Since(t0)
		el := time.Since(start)
		fmt.Fprintf(w, "%d,%d,%.6g,%.6g,%.6g,%.6g,%g,%g,%d,%d,%.4f,%.3f\n", st.Step, st.Epoch, st.DLoss, st.GLoss,
			st.DReal, st.DFake, st.ScaleD, st.ScaleG, b2i(st.SkippedD), b2i(st.SkippedG), dt.Seconds(), el.Seconds())
		if err := w.Flush(); err != nil {
			return sum, fmt.Errorf("gan: writing %s: %w", sum.Log, err)
		}
		sum.SkippedD += b2i(st.SkippedD)
		sum.SkippedG += b2i(st.SkippedG)
		if recent = append(recent, st); len(recent) > 100 {
			recent = recent[1:]
		}
		if ro.OnStep != nil {
			ro.OnStep(st, el)
		}
		if ro.SampleEvery > 0 && t.step%ro.SampleEvery == 0 && t.step < ro.Steps {
			if err := grid(filepath.Join(ro.Dir, fmt.Sprintf("samples_%06d.png", t.step))); err != nil {
				return sum, err
			}
		}
		if ro.CheckpointEvery > 0 && t.step%ro.CheckpointEvery == 0 && t.step < ro.Steps {
			if err := save(sum.Checkpoint); err != nil {
				return sum, err
			}
			if ro.KeepCheckpoints {
				if err := save(filepath.Join(ro.Dir, fmt.Sprintf("checkpoint_%06d.safetensors", t.step))); err != nil {
					return sum, err
				}
			}
		}
	}
	sum.Elapsed = time.Since(start)
	sum.LastStep = t.step
	sum.FinalScaleD, sum.FinalScaleG = t.scalerD.Scale, t.scalerG.Scale
	for _, st := range recent {
		k := float64(len(recent))
		sum.MeanDLoss += st.DLoss / k
		sum.MeanGLoss += st.GLoss / k
		sum.MeanDReal += st.DReal / k
		sum.MeanDFake += st.DFake / k
	}
	if err := grid(sum.Samples); err != nil {
		return sum, err
	}
	if err := save(sum.Checkpoint); err != nil {
		return sum, err
	}
	if interrupted {
		return sum, ErrInterrupted
	}
	return sum, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// openLog opens the log for appending after step: a new log with its
// header at step 0; otherwise the existing log cut after the line of step
// (lines a crashed run wrote after its last checkpoint are dropped).
func openLog(path string, step int) (*os.File, error) {
	var keep bytes.Buffer
	keep.WriteString(logHeader + "\n")
	if step > 0 {
		if data, err := os.ReadFile(path); err == nil {
			lines := strings.Split(string(data), "\n")
			for _, l := range lines[1:] {
				f, _, _ := strings.Cut(l, ",")
				if s, err := strconv.Atoi(f); err == nil && s <= step {
					keep.WriteString(l + "\n")
				}
			}
		}
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(keep.Bytes()); return err }); err != nil {
		return nil, fmt.Errorf("gan: log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("gan: log: %w", err)
	}
	return f, nil
}
