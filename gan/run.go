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
	"github.com/positgan/positgan/internal/numfmt"
	"github.com/positgan/positgan/internal/regfile"
)

// RunOptions say how long to train and what to write.
type RunOptions struct {
	// Dir receives log.csv, samples_<step>.png, samples.png, losses.png
	// (rewritten with each grid) and checkpoint.safetensors. It must exist.
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
	// 100 for conditional GANs, 10 per class; 64 otherwise). Models that
	// do not make images from noise (see Generator) write no grids.
	GridImages int
	// Meta is extra checkpoint metadata (such as the data set's name).
	Meta map[string]string
	// OnStep, if not nil, is called after every step.
	OnStep func(st StepStats, elapsed time.Duration)
	// Warn, if not nil, is shown each health alarm as it is raised (see
	// Summary.Warnings), for the user to see at once.
	Warn func(msg string)
}

// Summary reports a run. Slices are indexed like the model's Updates
// (Skipped, MeanLosses, FinalScales) and Metrics (MeanMetrics).
type Summary struct {
	FirstStep, LastStep int           // steps done before and after the run
	Elapsed             time.Duration // wall time of the training steps
	Updates             []string      // the names of the model's updates
	Metrics             []string      // the names of the model's metrics
	Skipped             []int         // updates skipped for overflow
	// MeanLosses and MeanMetrics are means over the last (up to) 100 steps.
	MeanLosses, MeanMetrics  []float64
	FinalScales              []float64
	Samples, Checkpoint, Log string // Samples is "" for models without grids
	LossPlot                 string // losses.png, see WriteLossPlot
	// Status is the run's health after its last step (StatusOK,
	// StatusSkipping, StatusSaturated, StatusDiverged), also the last
	// line's status column in log.csv; Warnings are the alarms raised.
	// While an alarm is on, checkpoints go to Unhealthy
	// (checkpoint_unhealthy.safetensors) and Checkpoint keeps the last
	// state saved before the alarm; LastHealthy is its step.
	Status      string
	Warnings    []string
	Unhealthy   string
	LastHealthy int
}

// ErrInterrupted is returned by Run when its context was cancelled: the
// step under way was finished and the checkpoint and samples written.
var ErrInterrupted = errors.New("gan: interrupted")

// LogHeader returns the first line of m's log.csv: step, epoch, the
// columns of Trainer.LogColumns, step_seconds and elapsed_seconds. For
// CGAN and DCGAN: step,epoch,d_loss,g_loss,d_real,d_fake,loss_scale_d,
// loss_scale_g,skipped_d,skipped_g,step_seconds,elapsed_seconds.
func LogHeader(m Model) string {
	return "step,epoch," + strings.Join(logColumns(m), ",") + ",status,step_seconds,elapsed_seconds"
}

// Run trains until ro.Steps steps are done or ctx is cancelled, logging
// every step to Dir/log.csv and writing sample grids and checkpoints as
// ro says. When it ends, also on cancellation, it writes the final grid
// samples.png and checkpoint.safetensors.
func (t *Trainer) Run(ctx context.Context, ro RunOptions) (Summary, error) {
	sum := Summary{FirstStep: t.step, LastStep: t.step,
		Checkpoint: filepath.Join(ro.Dir, "checkpoint.safetensors"), Log: filepath.Join(ro.Dir, "log.csv"),
		LossPlot: filepath.Join(ro.Dir, "losses.png"),
		Metrics:  t.model.Metrics(), Status: StatusOK, LastHealthy: t.step}
	for _, u := range t.model.Updates() {
		sum.Updates = append(sum.Updates, u.Name)
	}
	logf, before, err := openLog(sum.Log, LogHeader(t.model), t.step)
	if err != nil {
		return sum, err
	}
	defer logf.Close()
	w := bufio.NewWriter(logf)
	slog, err := openSparsityLog(ro.Dir, t.nets, t.step) // sparsity.go; nil without masks
	if err != nil {
		return sum, err
	}
	defer slog.Close()

	hl := newHealth(sum.Metrics)
	status := StatusOK
	warn := func(msgs ...string) {
		if ro.Warn != nil {
			for _, m := range msgs {
				ro.Warn(m)
			}
		}
	}
	// alarms takes the status and the new warnings health gives after a
	// step or a sample grid.
	alarms := func(s string, msgs []string) {
		status = s
		warn(msgs...)
		sum.Status, sum.Warnings = status, hl.warnings
	}
	var grid func(path string) error
	if gm, ok := t.model.(Generator); ok {
		sum.Samples = filepath.Join(ro.Dir, "samples.png")
		spec := gm.Generator()
		n := ro.GridImages
		if n <= 0 {
			n = 64
			if spec.Classes > 0 {
				n = 10 * spec.Classes
			}
		}
		rows, cols := GridShape(spec, n)
		z, labels := FixedNoise(spec, t.opt.Seed, rows, cols)
		var sampler *Sampler
		var sampled *Nets
		grid = func(path string) error {
			if sampler == nil || sampled != t.nets {
				if sampler, err = NewSampler(t.nets, rows*cols, SampleOptions{}); err != nil {
					return err
				}
				sampled = t.nets
			}
			imgs := make([]float32, rows*cols*spec.Image.Size())
			if err := sampler.Generate(imgs, z, labels); err != nil {
				return err
			}
			alarms(hl.sampled(t.step, imgs, rows*cols))
			return WriteGrid(path, imgs, spec.Image, rows, cols)
		}
	} else if vm, ok := t.model.(Visualizer); ok {
		sum.Samples = filepath.Join(ro.Dir, "samples.png")
		grid = func(path string) error {
			img, err := vm.Visuals(t.nets, t.data, t.opt.Seed)
			if err != nil {
				return err
			}
			return writePNG(path, img)
		}
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

	// The health rule: a checkpoint taken while an alarm is on goes to
	// checkpoint_unhealthy.safetensors, so that checkpoint.safetensors keeps
	// the last state from before the alarm; a non-finite state stops the
	// run before anything is saved. The losses and loss scales are checked
	// every step; the whole state (parameters, moments), which costs a pass
	// over it, before every checkpoint.
	var recent []StepStats
	start := time.Now()
	diverged := func(reason string) error {
		sum.Status, sum.LastStep, sum.Elapsed = StatusDiverged, t.step, time.Since(start)
		msg := fmt.Sprintf("step %d: %s: the run has diverged and stops", t.step, reason)
		sum.Warnings = append(hl.warnings, msg)
		warn(msg)
		if err := WriteLossPlot(sum.LossPlot, sum.Log); err != nil {
			return err
		}
		return &DivergedError{Step: t.step, Reason: reason, LastGood: sum.LastHealthy}
	}
	checked := -1 // the step after which the state was last found finite
	saveHealthy := func() error {
		if checked != t.step {
			if reason := t.StateNonFinite(); reason != "" {
				return diverged(reason)
			}
		}
		if status != StatusOK {
			sum.Unhealthy = filepath.Join(ro.Dir, "checkpoint_unhealthy.safetensors")
			return save(sum.Unhealthy)
		}
		sum.LastHealthy = t.step
		return save(sum.Checkpoint)
	}
	interrupted := false
	for t.step < ro.Steps {
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		t0 := time.Now()
		st, err := t.TrainStep()
		reason := t.StepNonFinite(st)
		if err != nil && reason == "" {
			w.Flush()
			return sum, err
		}
		saveDue := ro.CheckpointEvery > 0 && t.step%ro.CheckpointEvery == 0 || t.step >= ro.Steps
		if reason == "" && saveDue {
			if reason = t.StateNonFinite(); reason == "" {
				checked = t.step // saveHealthy need not look again
			}
		}
		dt := time.Since(t0)
		el := time.Since(start)
		if reason != "" {
			// Diverged: log the step, keep the last healthy checkpoint.
			st.Step = t.step
			writeLogLine(w, st, StatusDiverged, dt, before+el)
			w.Flush()
			return sum, diverged(reason)
		}
		alarms(hl.observe(st, sum.Updates))
		writeLogLine(w, st, status, dt, before+el) // elapsed over every invocation
		if err := w.Flush(); err != nil {
			return sum, fmt.Errorf("gan: writing %s: %w", sum.Log, err)
		}
		if err := slog.write(t.step, t.nets); err != nil {
			return sum, err
		}
		if sum.Skipped == nil {
			sum.Skipped = make([]int, len(st.Skipped))
		}
		for i, sk := range st.Skipped {
			sum.Skipped[i] += b2i(sk)
		}
		if recent = append(recent, st); len(recent) > 100 {
			recent = recent[1:]
		}
		if ro.OnStep != nil {
			ro.OnStep(st, el)
		}
		if grid != nil && ro.SampleEvery > 0 && t.step%ro.SampleEvery == 0 && t.step < ro.Steps {
			if err := grid(filepath.Join(ro.Dir, fmt.Sprintf("samples_%06d.png", t.step))); err != nil {
				return sum, err
			}
			if err := WriteLossPlot(sum.LossPlot, sum.Log); err != nil {
				return sum, err
			}
		}
		if ro.CheckpointEvery > 0 && t.step%ro.CheckpointEvery == 0 && t.step < ro.Steps {
			if err := saveHealthy(); err != nil {
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
	for _, u := range t.model.Updates() {
		sum.FinalScales = append(sum.FinalScales, t.scalers[u.Name].Scale)
	}
	if sum.Skipped == nil {
		sum.Skipped = make([]int, len(sum.Updates))
	}
	sum.MeanLosses = make([]float64, len(sum.Updates))
	sum.MeanMetrics = make([]float64, len(sum.Metrics))
	for _, st := range recent {
		k := float64(len(recent))
		for i, l := range st.Losses {
			sum.MeanLosses[i] += l / k
		}
		for i, m := range st.Metrics {
			sum.MeanMetrics[i] += m / k
		}
	}
	// The final checkpoint first: a grid or plot that cannot be drawn
	// must not cost the run.
	if err := saveHealthy(); err != nil {
		return sum, err
	}
	if grid != nil {
		if err := grid(sum.Samples); err != nil {
			return sum, err
		}
	}
	if err := WriteLossPlot(sum.LossPlot, sum.Log); err != nil {
		return sum, err
	}
	if interrupted {
		return sum, ErrInterrupted
	}
	return sum, nil
}

// writeLogLine writes one step's line of log.csv.
func writeLogLine(w io.Writer, st StepStats, status string, dt, el time.Duration) {
	fmt.Fprintf(w, "%d,%d", st.Step, st.Epoch)
	for _, l := range st.Losses {
		fmt.Fprintf(w, ",%s", numfmt.Float32(float32(l))) // a float32 loss, exactly
	}
	for _, m := range st.Metrics {
		fmt.Fprintf(w, ",%s", numfmt.Float(m))
	}
	for _, s := range st.Scales {
		fmt.Fprintf(w, ",%s", numfmt.Float(s))
	}
	for _, sk := range st.Skipped {
		fmt.Fprintf(w, ",%d", b2i(sk))
	}
	fmt.Fprintf(w, ",%s,%.4f,%.3f\n", status, dt.Seconds(), el.Seconds())
}

// withStatus returns the CSV line l with the field v inserted before its
// last two (step_seconds, elapsed_seconds).
func withStatus(l, v string) string {
	i := strings.LastIndexByte(l, ',')
	if i < 0 {
		return l
	}
	j := strings.LastIndexByte(l[:i], ',')
	if j < 0 {
		return l
	}
	return l[:j] + "," + v + l[j:]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// openLog opens the log for appending after step: a new log with its
// header at step 0; otherwise the existing log cut after the line of step
// (lines a crashed run wrote after its last checkpoint are dropped). It
// also returns the elapsed_seconds of the last line kept.
func openLog(path, header string, step int) (_ *os.File, elapsed time.Duration, _ error) {
	var keep bytes.Buffer
	keep.WriteString(header + "\n")
	if step > 0 {
		if data, err := regfile.ReadFile(path, 0); err == nil { // a regular file: a named pipe would block
			lines := strings.Split(string(data), "\n")
			// A log written before the status column: each kept line gets
			// status ok.
			old := lines[0] != header && withStatus(lines[0], "status") == header
			for _, l := range lines[1:] {
				if old && strings.Count(l, ",") >= 2 {
					l = withStatus(l, StatusOK)
				}
				f, _, _ := strings.Cut(l, ",")
				if s, err := strconv.Atoi(f); err == nil && s <= step {
					keep.WriteString(l + "\n")
					if e, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ',')+1:], 64); err == nil && e >= 0 {
						elapsed = time.Duration(e * float64(time.Second))
					}
				}
			}
		}
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(keep.Bytes()); return err }); err != nil {
		return nil, 0, fmt.Errorf("gan: log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("gan: log: %w", err)
	}
	return f, elapsed, nil
}
