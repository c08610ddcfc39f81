package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/eval"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/regfile"
)

// A Result is what a finished run records in its result.json: its
// figures, and the inputs its FID depends on, so that a sweep with other
// settings measures the run again.
type Result struct {
	Policy   string `json:"policy"`
	Seed     uint64 `json:"seed"`
	Steps    int    `json:"steps"`
	Dataset  string `json:"dataset"`
	Features string `json:"features"`
	N        int    `json:"n"`
	EvalSeed uint64 `json:"eval_seed"`
	// BatchStats is true for FIDs of generators that normalised each
	// batch by its own statistics (Sweep.BatchStats, or checkpoints
	// without running statistics).
	BatchStats bool    `json:"batch_stats,omitempty"`
	Metric     string  `json:"metric"`
	FID        float64 `json:"fid"` // of generators; 0 for models with an Evaluator
	// FIDStdErr is the FID's sampling error over the generated images
	// (eval.FIDStdErr with FIDResamples, seeded by EvalSeed, the
	// reference fixed); 0 if not measured (results written before it
	// was, and models with an Evaluator).
	FIDStdErr float64 `json:"fid_se,omitempty"`
	// Extra are the figures of the set metrics of Sweep.Metrics, by
	// table column ("precision (LeNet-MNIST)"); a result without one of
	// them is measured again for it alone.
	Extra map[string]float64 `json:"extra,omitempty"`
	// Figures are the figures of a model with an Evaluator, by name.
	Figures map[string]float64 `json:"figures,omitempty"`
	// DLoss and GLoss are means over the last 100 steps; DLoss sums
	// the losses of a model's discriminators (CycleGAN: D_A and D_B).
	DLoss    float64 `json:"d_loss"`
	GLoss    float64 `json:"g_loss"`
	SkippedD int     `json:"skipped_d"` // updates skipped over the whole run
	SkippedG int     `json:"skipped_g"`
	SPerStep float64 `json:"s_per_step"` // mean wall time of a step
	// Status is the run's health at its end when not ok (gan.StatusDiverged,
	// gan.StatusSaturated, gan.StatusSkipping): the figures are then those
	// of the last healthy checkpoint, of step GoodStep (0 and no figures if
	// a diverged run kept none).
	Status   string `json:"status,omitempty"`
	GoodStep int    `json:"good_step,omitempty"`
}

// readResult returns a run's recorded result if it was measured with the
// settings of s.
func readResult(s *Sweep, r Run, metric string) (*Result, bool) {
	data, err := regfile.ReadFile(filepath.Join(r.Dir, ResultFile), 1<<20) // a few hundred bytes when written
	if err != nil {
		return nil, false
	}
	var res Result
	if json.Unmarshal(data, &res) != nil {
		return nil, false
	}
	ok := res.Policy == r.Policy && res.Seed == r.Seed && res.Steps == s.Steps && res.Dataset == s.Dataset &&
		res.Features == s.Features && res.N == s.N && res.EvalSeed == s.EvalSeed && res.Metric == metric &&
		res.BatchStats == (s.BatchStats || !hasRunningStats(r))
	return &res, ok
}

// runOne trains one run to s.Steps (from scratch, or on from its
// checkpoint), measures it with ms and records the result.
func runOne(ctx context.Context, s *Sweep, m *model, r Run, ms *measurer, log io.Writer) (*Result, error) {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, err
	}
	// A run that diverged is not an error of the sweep: it is measured by
	// its last healthy checkpoint and marked (issue 19 item 3).
	terr := m.train(ctx, s, r, log)
	if _, diverged := gan.IsDiverged(terr); terr != nil && !diverged {
		return nil, terr
	}
	res := &Result{Policy: r.Policy, Seed: r.Seed, Steps: s.Steps, Dataset: s.Dataset, Features: s.Features,
		N: s.N, EvalSeed: s.EvalSeed, Metric: ms.metric, BatchStats: s.BatchStats}
	if err := readFigures(res, filepath.Join(r.Dir, "log.csv"), s.Steps); err != nil {
		return nil, err
	}
	c, err := ckpt.Load(filepath.Join(r.Dir, checkpointFile))
	if res.Status == gan.StatusDiverged && errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(log, "%s: diverged before its first checkpoint: no figures\n", r)
		return res, writeResult(r, res)
	}
	if err != nil {
		return nil, err
	}
	if res.Status != "" {
		st, err := gan.ReadState(c)
		if err != nil {
			return nil, err
		}
		res.GoodStep = st.Step
		fmt.Fprintf(log, "%s: %s; measured at step %d, its last healthy checkpoint\n", r, res.Status, st.Step)
	}
	if ms.ev != nil {
		figs, err := ms.ev.Evaluate(ctx, s, c)
		if err != nil {
			return nil, err
		}
		res.Figures = map[string]float64{}
		for i, name := range ms.columns {
			res.Figures[name] = figs[i]
		}
	} else {
		x, err := GeneratorFeatures(c, ms.ext, s.N, s.EvalSeed, 100, gan.SampleOptions{BatchStats: s.BatchStats})
		if err != nil {
			return nil, err
		}
		st, err := eval.StatsOf(x)
		if err != nil {
			return nil, err
		}
		res.BatchStats = s.BatchStats || !checkpointHasRunningStats(c)
		if res.FID, err = fidOf(eval.Features{Stats: st}, eval.Features{Stats: ms.ref.Stats}); err != nil {
			return nil, err
		}
		if err := measureSet(res, ms, eval.Features{Rows: x, Stats: st}, s.EvalSeed); err != nil {
			return nil, err
		}
		if err := measureClassAccuracy(res, s, c, ms, gan.SampleOptions{BatchStats: s.BatchStats}); err != nil {
			return nil, err
		}
	}
	return res, writeResult(r, res)
}

// FIDResamples is the number of bootstrap resamples of a run's generated
// images that measure its FID's sampling error (Result.FIDStdErr).
const FIDResamples = eval.FIDResamples

// measureSet records in res what it lacks of the figures measured from
// the features of a run's generated images beside its FID: the FID's
// sampling error, and the metrics of ms.extra.
func measureSet(res *Result, ms *measurer, gen eval.Features, seed uint64) error {
	if res.FIDStdErr == 0 {
		se, err := eval.FIDStdErr(ms.ref.Stats, gen.Rows, FIDResamples, seed)
		if err != nil {
			return err
		}
		res.FIDStdErr = se
	}
	return measureExtra(res, ms.ref, gen, ms.extra)
}

// remeasure measures a finished run's generated images again for what
// res lacks (measureSet), from its checkpoint, and records the result:
// the images are made as the FID's were (res.BatchStats).
func remeasure(s *Sweep, r Run, res *Result, ms *measurer) error {
	c, err := loadCheckpoint(r)
	if err != nil {
		return err
	}
	if c == nil {
		return fmt.Errorf("%s: finished, but no checkpoint to measure", r)
	}
	x, err := GeneratorFeatures(c, ms.ext, s.N, s.EvalSeed, 100, gan.SampleOptions{BatchStats: res.BatchStats})
	if err != nil {
		return err
	}
	if err := measureSet(res, ms, eval.Features{Rows: x}, s.EvalSeed); err != nil {
		return err
	}
	if err := measureClassAccuracy(res, s, c, ms, gan.SampleOptions{BatchStats: res.BatchStats}); err != nil {
		return err
	}
	return writeResult(r, res)
}

// writeResult records res in r's result.json.
func writeResult(r Run, res *Result) error {
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(r.Dir, ResultFile), append(js, '\n'))
}

const checkpointFile = "checkpoint.safetensors"

// loadCheckpoint returns a run's checkpoint, or nil if it has none yet.
func loadCheckpoint(r Run) (*ckpt.Checkpoint, error) { return LoadCheckpoint(r.Dir) }
