package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/regfile"
	"github.com/positgan/positgan/policy"
)

// PlanVersion is the version of the plan file format that WritePlan
// writes and ReadPlan reads.
const PlanVersion = 1

// MaxPlanRuns bounds the runs of a plan (policies × seeds), so that a
// plan file or a mistyped --seeds cannot allocate without end.
const MaxPlanRuns = 100000

// maxPlanBytes bounds a plan file: MaxPlanRuns runs of a few hundred
// bytes each, with their policies' TOML.
const maxPlanBytes = 256 << 20

// PlanFile is the name of the copy of its plan that RunPlan keeps in the
// output root, where Merge finds it.
const PlanFile = "plan.json"

// A Plan is a sweep laid out as a list of runs, for running it in several
// processes or on several machines (RunPlan) and gathering the results
// (Merge). Its runs, their order and their folders are fixed when it is
// made, so every process that reads the plan agrees on them; a policy
// file's contents are in the plan, so the processes need only the plan.
type Plan struct {
	Sweep     Sweep // the settings, Features filled in; Log and Progress are not in the file
	Resources Resources
	runs      []plannedRun
}

// Resources are what one process running a plan's runs asks of its
// machine: written into a Kubernetes Job's resource requests and a Slurm
// script's #SBATCH lines.
type Resources struct {
	CPUs      int `json:"cpus"`
	MemoryMiB int `json:"memory_mib"`
}

// DefaultResources suit the small models: two cores, 4 GiB.
var DefaultResources = Resources{CPUs: 2, MemoryMiB: 4096}

// A plannedRun is a run as the plan file records it.
type plannedRun struct {
	Index  int    `json:"index"`
	Policy string `json:"policy"` // the folder name
	Seed   uint64 `json:"seed"`
	Dir    string `json:"dir"` // relative to the output root, slash-separated
	// Spec is a preset or format name (policy.Parse); TOML the
	// contents of a policy file (policy.Read). One of them is set.
	Spec string `json:"spec,omitempty"`
	TOML string `json:"toml,omitempty"`
}

// planFile is the JSON layout of a plan file.
type planFile struct {
	Version   int          `json:"positgan_plan"`
	Sweep     planSweep    `json:"sweep"`
	Resources Resources    `json:"resources"`
	Runs      []plannedRun `json:"runs"`
}

type planSweep struct {
	Model           string   `json:"model"`
	Dataset         string   `json:"dataset"`
	Policies        []string `json:"policies"`
	Seeds           int      `json:"seeds"`
	FirstSeed       uint64   `json:"first_seed"`
	Steps           int      `json:"steps"`
	Batch           int      `json:"batch"`
	LR              float64  `json:"lr"`
	CheckpointEvery int      `json:"checkpoint_every"`
	N               int      `json:"n"`
	EvalSeed        uint64   `json:"eval_seed"`
	BatchStats      bool     `json:"batch_stats"`
	Features        string   `json:"features"`
	Out             string   `json:"out"`
	// Options are the model options (Sweep.Options): left out when there
	// are none, so that a plan without them is written as before they
	// were, and a plan file written before reads as one without.
	Options map[string]string `json:"options,omitempty"`
}

// A PlanError says why a plan file cannot be used.
type PlanError struct {
	Path string // the file, if the plan came from one
	Err  error
}

func (e *PlanError) Error() string {
	if e.Path == "" {
		return "experiment: plan: " + e.Err.Error()
	}
	return "experiment: plan " + e.Path + ": " + e.Err.Error()
}

func (e *PlanError) Unwrap() error { return e.Err }

// NewPlan checks s (as Compare does, without reading the data) and lays
// out its runs, policy by policy, seed by seed. Policy files are read
// now: the plan holds their contents.
func NewPlan(s Sweep, res Resources) (*Plan, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if n := len(s.Policies); s.Seeds > MaxPlanRuns || n*s.Seeds > MaxPlanRuns {
		return nil, &PlanError{Err: fmt.Errorf("%d policies × %d seeds: a plan has at most %d runs", n, s.Seeds, MaxPlanRuns)}
	}
	if res.CPUs <= 0 || res.MemoryMiB <= 0 {
		return nil, &PlanError{Err: fmt.Errorf("resources %d CPUs, %d MiB: must be positive", res.CPUs, res.MemoryMiB)}
	}
	runs, err := s.Runs()
	if err != nil {
		return nil, err
	}
	s.Log, s.Progress = nil, nil
	s.Options = maps.Clone(s.Options) // the plan's own
	p := &Plan{Sweep: s, Resources: res}
	for i, r := range runs {
		arg := strings.TrimSpace(s.Policies[i/s.Seeds])
		pr := plannedRun{Index: i, Policy: r.Policy, Seed: r.Seed, Dir: path.Join(r.Policy, "seed"+strconv.FormatUint(r.Seed, 10))}
		if _, err := policy.ParseName(arg); err == nil {
			pr.Spec = arg
		} else {
			// A policy file, or a format that reads one (table:FILE): the
			// plan holds the policy by value, so no process running it
			// opens another file.
			pr.TOML = r.policy.String()
		}
		p.runs = append(p.runs, pr)
	}
	return p, nil
}

// checkLabel reports whether label can name a run folder and a grid file
// under the output root: one path element, not . or .., printable.
func checkLabel(label string) error {
	switch {
	case label == "" || label == "." || label == "..":
		return fmt.Errorf("policy label %q cannot name a folder", label)
	case len(label) > 200:
		return fmt.Errorf("policy label of %d bytes; at most 200", len(label))
	case strings.ContainsAny(label, "/\\\x00"):
		return fmt.Errorf("policy label %q is not one path element", label)
	}
	for _, r := range label {
		if r < ' ' || r == 0x7f {
			return fmt.Errorf("policy label %q holds a control character", label)
		}
	}
	return nil
}

// Len returns the number of runs.
func (p *Plan) Len() int { return len(p.runs) }

// Runs returns the plan's runs in order, their folders under p.Sweep.Out.
func (p *Plan) Runs() ([]Run, error) { return p.runsIn(p.Sweep.Out) }

// runsIn returns the runs with their folders under root.
func (p *Plan) runsIn(root string) ([]Run, error) {
	runs := make([]Run, len(p.runs))
	for i, pr := range p.runs {
		var pol *policy.Policy
		var err error
		if pr.TOML != "" {
			pol, err = policy.Read(strings.NewReader(pr.TOML))
		} else {
			pol, err = policy.ParseName(pr.Spec) // never a file: the plan came from elsewhere
		}
		if err != nil {
			return nil, &PlanError{Err: fmt.Errorf("run %d (%s): %w", i, pr.Policy, err)}
		}
		runs[i] = Run{Policy: pr.Policy, Seed: pr.Seed, Dir: filepath.Join(root, filepath.FromSlash(pr.Dir)), policy: pol}
	}
	return runs, nil
}

// MarshalJSON writes the plan file: its version, the settings, the
// resources and the runs, each with its index, policy, seed and folder.
func (p *Plan) MarshalJSON() ([]byte, error) {
	s := p.Sweep
	f := planFile{Version: PlanVersion, Resources: p.Resources, Runs: p.runs, Sweep: planSweep{
		Model: s.Model, Dataset: s.Dataset, Policies: s.Policies, Seeds: s.Seeds, FirstSeed: s.FirstSeed,
		Steps: s.Steps, Batch: s.Batch, LR: s.LR, CheckpointEvery: s.CheckpointEvery, N: s.N,
		EvalSeed: s.EvalSeed, BatchStats: s.BatchStats, Features: s.Features, Out: s.Out, Options: s.Options}}
	return json.MarshalIndent(f, "", "  ")
}

// UnmarshalJSON reads a plan file of version PlanVersion and checks it.
func (p *Plan) UnmarshalJSON(data []byte) error {
	var f planFile
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return err
	}
	if f.Version != PlanVersion {
		return fmt.Errorf("version %d; this positgan reads version %d", f.Version, PlanVersion)
	}
	w := f.Sweep
	s := Sweep{Model: w.Model, Dataset: w.Dataset, Policies: w.Policies, Seeds: w.Seeds, FirstSeed: w.FirstSeed,
		Steps: w.Steps, Batch: w.Batch, LR: w.LR, CheckpointEvery: w.CheckpointEvery, N: w.N,
		EvalSeed: w.EvalSeed, BatchStats: w.BatchStats, Features: w.Features, Out: w.Out, Options: w.Options}
	if err := s.check(); err != nil {
		return err
	}
	if len(f.Runs) == 0 {
		return errors.New("no runs")
	}
	if s.Seeds > MaxPlanRuns || len(f.Runs) > MaxPlanRuns || len(f.Runs) != len(s.Policies)*s.Seeds {
		return fmt.Errorf("%d runs; the sweep has %d policies of %d seeds", len(f.Runs), len(s.Policies), s.Seeds)
	}
	// Each run is the one the sweep lays out at its index: its label,
	// seed and folder follow from the sweep's policies and seeds, and a
	// spec is the policy name the sweep gives. So a run cannot train one
	// policy under another's label, or write outside the output root.
	seen := map[string]bool{}
	for i, r := range f.Runs {
		arg := strings.TrimSpace(s.Policies[i/s.Seeds])
		label := PolicyLabel(arg)
		seed := s.FirstSeed + uint64(i%s.Seeds)
		switch {
		case r.Index != i:
			return fmt.Errorf("run %d has index %d", i, r.Index)
		case (r.Spec == "") == (r.TOML == ""):
			return fmt.Errorf("run %d: want one of spec and toml", i)
		case checkLabel(r.Policy) != nil:
			return fmt.Errorf("run %d: %v", i, checkLabel(r.Policy))
		case r.Policy != label:
			return fmt.Errorf("run %d: policy label %q, but the sweep's policy %d is %q", i, r.Policy, i/s.Seeds, label)
		case r.Seed != seed:
			return fmt.Errorf("run %d: seed %d, but the sweep gives it seed %d", i, r.Seed, seed)
		case r.Dir == "" || path.IsAbs(r.Dir) || path.Clean(r.Dir) != r.Dir || strings.HasPrefix(r.Dir, ".."):
			return fmt.Errorf("run %d: folder %q is not a clean path inside the output root", i, r.Dir)
		case r.Spec != "" && r.Spec != arg:
			return fmt.Errorf("run %d: spec %q, but the sweep names %q", i, r.Spec, arg)
		case r.Dir != path.Join(label, "seed"+strconv.FormatUint(seed, 10)):
			return fmt.Errorf("run %d: folder %q, want %s/seed%d", i, r.Dir, label, seed)
		case seen[r.Dir]:
			return fmt.Errorf("run %d: folder %q given twice", i, r.Dir)
		}
		seen[r.Dir] = true
	}
	*p = Plan{Sweep: s, Resources: f.Resources, runs: f.Runs}
	return nil
}

// WritePlan writes p to the file name, atomically.
func WritePlan(name string, p *Plan) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(name, indent(data))
}

// indent returns the plan file's bytes: json.Marshal compacts what
// MarshalJSON indented.
func indent(data []byte) []byte {
	var b bytes.Buffer
	json.Indent(&b, data, "", "  ")
	b.WriteByte('\n')
	return b.Bytes()
}

// ReadPlan reads a plan file. Errors about its contents are *PlanErrors.
func ReadPlan(name string) (*Plan, error) {
	data, err := regfile.ReadFile(name, maxPlanBytes)
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			err = ce
		}
		return nil, &PlanError{Path: name, Err: err}
	}
	return &p, nil
}

// Equal reports whether p and q lay out the same runs with the same
// settings and resources, wherever their output roots are.
func (p *Plan) Equal(q *Plan) bool {
	a, b := *p, *q
	a.Sweep.Out, b.Sweep.Out = "", ""
	ja, err1 := json.Marshal(&a)
	jb, err2 := json.Marshal(&b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// record writes a copy of p into root as PlanFile, unless root holds one
// of an equal plan; root holding another plan is a *ConfigError.
func (p *Plan) record(root string) error {
	name := filepath.Join(root, PlanFile)
	if q, err := ReadPlan(name); err == nil {
		if !p.Equal(q) {
			return configErrorf("Out", root, "holds %s of another plan: use another folder", PlanFile)
		}
		return nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return WritePlan(name, p)
}
