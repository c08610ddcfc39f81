package gan

import (
	"errors"
	"fmt"
	"math"

	"github.com/positgan/positgan/scaling"
)

// Training health (issue 15): a run whose state stops being finite must
// stop without replacing its last healthy checkpoint, and a run that keeps
// training but has stopped learning (every update skipped, or a
// discriminator that wins outright) must say so loudly instead of
// finishing "successfully".

// The status column of log.csv and Summary.Status.
const (
	StatusOK        = "ok"
	StatusSkipping  = "skipping"  // nearly every update skipped over the recent steps
	StatusSaturated = "saturated" // the discriminator saturated: D(x)→1, D(G(z))→0
	StatusCollapsed = "collapsed" // every image of the last sample grid is the same
	StatusDiverged  = "diverged"  // non-finite loss, parameters, moments or loss scale: the run stopped
)

// Thresholds of the alarms: a run is "skipping" when one update was
// skipped at least skipFraction of the last healthWindow steps (with at
// least minHealthSteps seen), "saturated" when the mean D(x) was above
// 1-saturation and D(G(z)) below saturation for saturatedSteps steps in a
// row.
const (
	healthWindow   = 100
	minHealthSteps = 20
	skipFraction   = 0.9
	saturation     = 0.01
	saturatedSteps = 100
)

// DivergedError reports a run stopped because its state stopped being
// finite. The checkpoint in the run folder is the last healthy one
// (LastGood steps; 0: none was written).
type DivergedError struct {
	Step     int    // the step at which the state was found non-finite
	Reason   string // what was not finite
	LastGood int    // the step of the checkpoint kept, 0 if none
}

func (e *DivergedError) Error() string {
	kept := "no checkpoint was kept"
	if e.LastGood > 0 {
		kept = fmt.Sprintf("the checkpoint of step %d is kept", e.LastGood)
	}
	return fmt.Sprintf("gan: diverged at step %d: %s; %s", e.Step, e.Reason, kept)
}

// IsDiverged reports whether err says a run diverged, and how.
func IsDiverged(err error) (*DivergedError, bool) {
	var d *DivergedError
	ok := errors.As(err, &d)
	return d, ok
}

// StepNonFinite returns a description of the first non-finite figure of
// a step (its losses, and the loss scales after it), or "" if all are
// finite: the check Run makes after every step.
func (t *Trainer) StepNonFinite(st StepStats) string {
	for i, l := range st.Losses {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return fmt.Sprintf("loss of update %s is %v", t.gr.updates[i].update.Name, l)
		}
	}
	for _, u := range t.gr.updates {
		if s := t.scalers[u.update.Name].Scale; math.IsNaN(s) || math.IsInf(s, 0) || s <= 0 {
			return fmt.Sprintf("loss scale of update %s is %v", u.update.Name, s)
		}
	}
	return ""
}

// StateNonFinite returns a description of the first non-finite value in
// the trainer's parameters and Adam's moments, or "" if all are finite:
// the check Run makes before every checkpoint (a pass over the whole
// state, as long as a few percent of a step).
func (t *Trainer) StateNonFinite() string {
	for _, g := range t.nets.Groups {
		a := t.adam[g.Name]
		for i, p := range g.Net.Params() {
			for _, c := range [...]struct {
				what string
				x    []float32
			}{{"", p.Data()}, {"Adam's first moment of ", a.M[i]}, {"Adam's second moment of ", a.V[i]}} {
				if n := scaling.InspectLimit(c.x, math.Inf(1)).NonFinite; n > 0 {
					return fmt.Sprintf("%s%s has %d non-finite values", c.what, p.Name, n)
				}
			}
		}
	}
	return ""
}

// health follows the alarms over a run's steps.
type health struct {
	skipped   []window // per update, the last healthWindow steps
	saturated int      // consecutive saturated steps
	skipping  bool     // the alarms that are on
	collapsed bool
	real      int // index of d_real among the metrics, -1 if none
	fake      int
	warnings  []string
	raised    map[string]bool
}

func newHealth(metrics []string) *health {
	h := &health{real: -1, fake: -1, raised: map[string]bool{}}
	for i, m := range metrics {
		switch m {
		case "d_real":
			h.real = i
		case "d_fake":
			h.fake = i
		}
	}
	return h
}

// observe takes one step's figures and returns the run's status after it
// and the warnings of the alarms this step raised.
func (h *health) observe(st StepStats, updates []string) (status string, warnings []string) {
	if h.skipped == nil {
		h.skipped = make([]window, len(st.Skipped))
	}
	h.skipping = false
	var msgs []string
	for i, sk := range st.Skipped {
		w := &h.skipped[i]
		w.add(sk)
		n := w.count
		if w.len >= minHealthSteps && float64(n) >= skipFraction*float64(w.len) {
			h.skipping = true
			key := "skipping " + updates[i]
			if !h.raised[key] {
				h.raised[key] = true
				msgs = append(msgs, fmt.Sprintf("step %d: %d of the last %d updates of %s were skipped (gradient overflow or saturation): the run is not learning; try another loss scale or policy",
					st.Step, n, w.len, updates[i]))
			}
		}
	}
	if h.real >= 0 && h.fake >= 0 && st.Metrics[h.real] > 1-saturation && st.Metrics[h.fake] < saturation {
		h.saturated++
	} else {
		h.saturated = 0
	}
	if h.saturated >= saturatedSteps {
		if !h.raised[StatusSaturated] {
			h.raised[StatusSaturated] = true
			msgs = append(msgs, fmt.Sprintf("step %d: the discriminator has saturated for %d steps (D(x) > %g, D(G(z)) < %g): the generator gets no useful gradient; the run has most likely collapsed",
				st.Step, h.saturated, 1-saturation, saturation))
		}
	}
	h.warnings = append(h.warnings, msgs...)
	return h.current(), msgs
}

// window holds the last healthWindow of a run of flags and how many of
// them are set.
type window struct {
	flags     [healthWindow]bool
	next, len int // where the next flag goes; flags held
	count     int // flags set among them
}

func (w *window) add(f bool) {
	if w.len == healthWindow && w.flags[w.next] {
		w.count--
	}
	w.len = min(w.len+1, healthWindow)
	w.flags[w.next] = f
	if f {
		w.count++
	}
	w.next = (w.next + 1) % healthWindow
}

// current returns the status the alarms that are on give.
func (h *health) current() string {
	switch {
	case h.skipping:
		return StatusSkipping
	case h.saturated >= saturatedSteps:
		return StatusSaturated
	case h.collapsed:
		return StatusCollapsed
	}
	return StatusOK
}

// sampled takes the n images of a sample grid drawn after step (each
// from other noise, or another class) and returns the run's status and
// the warning of the collapse alarm if this grid raised it: a generator
// whose images are all the same has collapsed. A later grid with
// different images clears the alarm.
func (h *health) sampled(step int, imgs []float32, n int) (status string, warnings []string) {
	h.collapsed = n > 1 && allSame(imgs, len(imgs)/n)
	if h.collapsed && !h.raised[StatusCollapsed] {
		h.raised[StatusCollapsed] = true
		warnings = []string{fmt.Sprintf("step %d: all %d images of the sample grid are the same: the generator has collapsed", step, n)}
		h.warnings = append(h.warnings, warnings...)
	}
	return h.current(), warnings
}

// allSame reports whether the images of size each in imgs are equal to
// within 1e-4 (an 8-bit pixel's step is 2/255 on [-1, 1]).
func allSame(imgs []float32, size int) bool {
	first := imgs[:size]
	for i := size; i+size <= len(imgs); i += size {
		for j, v := range imgs[i : i+size] {
			if d := v - first[j]; d > 1e-4 || d < -1e-4 {
				return false
			}
		}
	}
	return true
}
