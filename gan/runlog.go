package gan

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/positgan/positgan/internal/regfile"
)

// A LogRow is one line of the log.csv that Run writes: the figures of
// one training step.
type LogRow struct {
	Step, Epoch int
	// Values holds the model's columns by name (see LogHeader): for CGAN
	// and DCGAN d_loss, g_loss, d_real, d_fake, loss_scale_d,
	// loss_scale_g, and skipped_d and skipped_g (0 or 1).
	Values map[string]float64
	// StepSeconds is the wall time of the step, ElapsedSeconds the
	// training time up to its end, summed over the Run calls of a resumed
	// run.
	StepSeconds, ElapsedSeconds float64
	// Status is the run's health after the step (StatusOK, ...; see
	// Summary.Status); "" in logs written before the column existed.
	Status string
}

// Value returns the figure of the column name (0 if the log has none).
func (r LogRow) Value(name string) float64 { return r.Values[name] }

// A LogError says where a run log is malformed.
type LogError struct {
	Path string
	Line int // 1-based; 0 when the log as a whole is at fault
	Err  error
}

func (e *LogError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("gan: log %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("gan: log %s line %d: %v", e.Path, e.Line, e.Err)
}

func (e *LogError) Unwrap() error { return e.Err }

// ReadLog reads a log.csv written by Run, one row per step in the order
// logged. Columns are found by their header names; step, epoch,
// step_seconds and elapsed_seconds must be there, status may be, and
// every other column is a number the row keeps in Values.
func ReadLog(path string) ([]LogRow, error) {
	f, _, err := regfile.Open(path) // a named pipe would block
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := decodeLog(f)
	if err != nil {
		var le *LogError
		if errors.As(err, &le) {
			le.Path = path
			return nil, le
		}
		return nil, &LogError{Path: path, Err: err}
	}
	return rows, nil
}

// decodeLog parses a log; errors are *LogError without a path.
func decodeLog(r io.Reader) ([]LogRow, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &LogError{Err: errors.New("empty, no header")}
	}
	if err != nil {
		return nil, &LogError{Line: 1, Err: err}
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	fixed := []string{"step", "epoch", "step_seconds", "elapsed_seconds"}
	for _, h := range fixed {
		if _, ok := col[h]; !ok {
			return nil, &LogError{Line: 1, Err: fmt.Errorf("no column %s", h)}
		}
	}
	var out []LogRow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, &LogError{Line: line, Err: err}
		}
		p := logParser{rec: rec, col: col}
		row := LogRow{
			Step: p.int("step"), Epoch: p.int("epoch"), Values: map[string]float64{},
			StepSeconds: p.float("step_seconds"), ElapsedSeconds: p.float("elapsed_seconds"),
		}
		if i, ok := col["status"]; ok && i < len(rec) {
			row.Status = rec[i]
		}
		for _, h := range header {
			if !slices.Contains(fixed, h) && h != "status" {
				row.Values[h] = p.float(h)
			}
		}
		if p.err != nil {
			return nil, &LogError{Line: line, Err: p.err}
		}
		out = append(out, row)
	}
}

// logParser reads the fields of one record, keeping the first error.
type logParser struct {
	rec []string
	col map[string]int
	err error
}

func (p *logParser) field(name string) string { return p.rec[p.col[name]] }

func (p *logParser) fail(name string, err error) {
	if p.err == nil {
		p.err = fmt.Errorf("column %s: %w", name, err)
	}
}

func (p *logParser) float(name string) float64 {
	v, err := strconv.ParseFloat(p.field(name), 64)
	if err != nil {
		p.fail(name, err)
	}
	return v
}

func (p *logParser) int(name string) int {
	v, err := strconv.Atoi(p.field(name))
	if err != nil {
		p.fail(name, err)
	}
	return v
}
