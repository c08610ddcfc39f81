package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// A Launch says how a batch system starts a plan's shards: Kubernetes
// writes an Indexed Job, Slurm a job array script.
type Launch struct {
	Shards int    // processes, each running the runs of one Shard
	Name   string // the job's name; empty means "positgan-compare"
	// PlanPath is the plan file as the shards see it (Slurm); Kubernetes
	// puts the plan into a ConfigMap instead.
	PlanPath string
	// Command is the positgan binary as the shards see it; empty means
	// "positgan" (on $PATH).
	Command string
	// Image is the container image with the positgan binary (Kubernetes).
	Image string
	// Claim names the PersistentVolumeClaim mounted at the plan's output
	// root, shared by the shards (Kubernetes).
	Claim string
}

func (l Launch) check(p *Plan) error {
	switch {
	case l.Shards <= 0:
		return errors.New("the shard count must be positive")
	case l.Shards > p.Len():
		return fmt.Errorf("%d shards for %d runs: some would have nothing to do", l.Shards, p.Len())
	}
	return nil
}

func (l Launch) name() string {
	if l.Name == "" {
		return "positgan-compare"
	}
	return l.Name
}

func (l Launch) command() string {
	if l.Command == "" {
		return "positgan"
	}
	return l.Command
}

// KubernetesPlanDir is where the Kubernetes manifest mounts the plan.
const KubernetesPlanDir = "/etc/positgan"

// Kubernetes returns a manifest (JSON, which kubectl reads as YAML) of a
// List holding a ConfigMap with the plan file and an Indexed Job that
// runs it: completions = parallelism = l.Shards, each pod running
// "positgan compare --plan ... --shards n" with its shard index in
// JOB_COMPLETION_INDEX, the claim l.Claim mounted at the plan's output
// root (an absolute path), and the plan's resources as requests (memory
// also as the limit). A shard that fails or is killed restarts in its
// pod and continues its runs.
func Kubernetes(p *Plan, l Launch) ([]byte, error) {
	if err := l.check(p); err != nil {
		return nil, &PlanError{Err: err}
	}
	out := p.Sweep.Out
	if !filepath.IsAbs(out) {
		return nil, &PlanError{Err: fmt.Errorf("output root %q: a volume is mounted at an absolute path", out)}
	}
	if l.Image == "" || l.Claim == "" {
		return nil, &PlanError{Err: errors.New("a Kubernetes Job needs an image and a volume claim")}
	}
	planJSON, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	name := l.name()
	res := map[string]string{"cpu": strconv.Itoa(p.Resources.CPUs), "memory": strconv.Itoa(p.Resources.MemoryMiB) + "Mi"}
	type obj = map[string]any
	cm := obj{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": obj{"name": name + "-plan"},
		"data":     obj{PlanFile: string(indent(planJSON))},
	}
	job := obj{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": obj{"name": name},
		"spec": obj{
			"completionMode": "Indexed",
			"completions":    l.Shards,
			"parallelism":    l.Shards,
			"backoffLimit":   3 * l.Shards,
			"template": obj{
				"metadata": obj{"labels": obj{"app": name}},
				"spec": obj{
					"restartPolicy": "OnFailure",
					"containers": []obj{{
						"name":  "compare",
						"image": l.Image,
						"command": []string{l.command(), "compare",
							"--plan", KubernetesPlanDir + "/" + PlanFile, "--shards", strconv.Itoa(l.Shards)},
						"env": []obj{{"name": "GOMAXPROCS", "value": strconv.Itoa(p.Resources.CPUs)}},
						"resources": obj{
							"requests": res,
							"limits":   obj{"memory": res["memory"]},
						},
						"volumeMounts": []obj{
							{"name": "out", "mountPath": out},
							{"name": "plan", "mountPath": KubernetesPlanDir, "readOnly": true},
						},
					}},
					"volumes": []obj{
						{"name": "out", "persistentVolumeClaim": obj{"claimName": l.Claim}},
						{"name": "plan", "configMap": obj{"name": name + "-plan"}},
					},
				},
			},
		},
	}
	list := obj{"apiVersion": "v1", "kind": "List", "items": []obj{cm, job}}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Slurm returns an sbatch script of a job array of l.Shards tasks
// (--array=0-<n-1>), each running "positgan compare --plan <l.PlanPath>
// --shards n" with its shard index in SLURM_ARRAY_TASK_ID, with the
// plan's resources (--cpus-per-task, --mem); Slurm writes each task's
// log (appending, should it be requeued) into the folder sbatch is run
// in. The plan path and output root must be on a file system every node
// mounts at the same path. A requeued task continues its runs.
func Slurm(p *Plan, l Launch) ([]byte, error) {
	if err := l.check(p); err != nil {
		return nil, &PlanError{Err: err}
	}
	if l.PlanPath == "" {
		return nil, &PlanError{Err: errors.New("a Slurm script needs the plan's path")}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/sh\n")
	fmt.Fprintf(&b, "# %d runs of a positgan compare plan in %d array tasks: task i trains the runs with index i mod %d.\n", p.Len(), l.Shards, l.Shards)
	fmt.Fprintf(&b, "# Submit with: sbatch <this file>; when all tasks are done: %s compare --plan %s\n", l.command(), shellQuote(l.PlanPath))
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", l.name())
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", l.Shards-1)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", p.Resources.CPUs)
	fmt.Fprintf(&b, "#SBATCH --mem=%dM\n", p.Resources.MemoryMiB)
	fmt.Fprintf(&b, "#SBATCH --requeue\n")
	fmt.Fprintf(&b, "#SBATCH --open-mode=append\n")
	fmt.Fprintf(&b, "export GOMAXPROCS=\"${SLURM_CPUS_PER_TASK:-%d}\"\n", p.Resources.CPUs)
	fmt.Fprintf(&b, "exec %s compare --plan %s --shards %d\n", shellQuote(l.command()), shellQuote(l.PlanPath), l.Shards)
	return b.Bytes(), nil
}

// shellQuote quotes s for sh if it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=+,:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
