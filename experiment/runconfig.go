package experiment

// A run's run.toml (RunConfigFile): every setting of a run as the flags
// of the command that started it, written when the run starts and read
// back to repeat it. positgan train writes and reads it; a notebook can
// do the same with its own flag.FlagSet.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/internal/regfile"
	"github.com/positgan/positgan/internal/tomlsafe"
)

// A MultiValue is a flag that may be given several times; run.toml
// holds its values as an array, each set in turn.
type MultiValue interface{ Strings() []string }

// A RunConfigError says that a run.toml cannot be applied: it does not
// parse, or names a key or holds a value the flags refuse.
type RunConfigError struct {
	Path string
	Err  error
}

func (e *RunConfigError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *RunConfigError) Unwrap() error { return e.Err }

// WriteRunConfig writes path: one key per flag of fs (its name and
// value) with the first line of the flag's description as a comment, but
// for the flags named in skip, and with the values of set in place of
// the flags' (a run's own policy and folder). A MultiValue flag is
// written as an array of strings.
func WriteRunConfig(path string, fs *flag.FlagSet, set map[string]string, skip []string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		fmt.Fprintf(w, "# The settings of this run, as positgan train's flags. Repeat the run with\n"+
			"#   positgan train --config %s --out ANOTHER_FOLDER\n"+
			"# (flags given on the command line override the file; --resume continues it here).\n", RunConfigFile)
		var err error
		fs.VisitAll(func(fl *flag.Flag) {
			if err != nil || slices.Contains(skip, fl.Name) {
				return
			}
			first, _, _ := strings.Cut(fl.Usage, "\n")
			fmt.Fprintf(w, "\n# %s\n", first)
			var v string
			if s, ok := set[fl.Name]; ok {
				v = TOMLString(s)
			} else if v, err = tomlValue(fl.Value); err != nil {
				err = fmt.Errorf("%s: --%s: %w", path, fl.Name, err)
				return
			}
			_, err = fmt.Fprintf(w, "%s = %s\n", fl.Name, v)
		})
		return err
	})
}

// tomlValue returns the TOML spelling of a flag's value.
func tomlValue(v flag.Value) (string, error) {
	if m, ok := v.(MultiValue); ok {
		var parts []string
		for _, s := range m.Strings() {
			parts = append(parts, TOMLString(s))
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	g, ok := v.(flag.Getter)
	if !ok {
		return TOMLString(v.String()), nil
	}
	switch x := g.Get().(type) {
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") { // TOML reads 2 as an integer
			s += ".0"
		}
		return s, nil
	case string:
		return TOMLString(x), nil
	}
	return TOMLString(v.String()), nil
}

// TOMLString quotes s as a TOML basic string.
func TOMLString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ApplyRunConfig sets the flags of fs from the run.toml file path, but
// those in given (the flags on the command line, which win); it adds the
// keys it sets to given. The file is read within tomlsafe's limits: it
// may come from another machine. A key that is no flag of fs or is named
// in skip, or a value the flag refuses, is a *RunConfigError, and so is
// text that does not parse; an unreadable file is the os error.
func ApplyRunConfig(fs *flag.FlagSet, path string, given map[string]bool, skip []string) error {
	f, _, err := regfile.Open(path) // a named pipe is refused: it would block
	if err != nil {
		return err
	}
	defer f.Close()
	var kv map[string]any
	if _, err := tomlsafe.Decode(f, &kv); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return &RunConfigError{path, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)}
		}
		return &RunConfigError{path, err}
	}
	bad := func(format string, a ...any) error { return &RunConfigError{path, fmt.Errorf(format, a...)} }
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		if fs.Lookup(k) == nil || slices.Contains(skip, k) {
			return bad("unknown key %q (the keys are train's flag names, such as steps)", k)
		}
		if given[k] {
			continue
		}
		var vals []string
		switch x := kv[k].(type) {
		case string:
			vals = []string{x}
		case int64:
			vals = []string{strconv.FormatInt(x, 10)}
		case float64:
			vals = []string{strconv.FormatFloat(x, 'g', -1, 64)}
		case bool:
			vals = []string{strconv.FormatBool(x)}
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return bad("%s: want strings in the array", k)
				}
				vals = append(vals, s)
			}
		default:
			return bad("%s: want a string, number or boolean", k)
		}
		for _, v := range vals {
			if err := fs.Set(k, v); err != nil {
				return bad("%s = %q: %v", k, v, err)
			}
		}
		given[k] = true
	}
	return nil
}
