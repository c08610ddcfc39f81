package main

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

	"github.com/positgan/positgan/experiment"
	"github.com/positgan/positgan/internal/atomicfile"
)

// runConfigFile is the file in each run folder that holds every setting
// of the run (experiment.RunConfigFile).
const runConfigFile = experiment.RunConfigFile

// runConfigSkip are the flags that say how to start rather than what to
// train: not settings of the run, and not accepted in a run.toml.
var runConfigSkip = []string{"config", "resume", "overwrite"}

// multiValue is a flag that may be given several times; run.toml holds
// its values as an array, each set in turn.
type multiValue interface{ Strings() []string }

// writeRunConfig writes path: one key per flag of fs (its name and value)
// with the flag's description as a comment, but for runConfigSkip, and
// with the values of set in place of the flags' (a run's own policy and
// folder).
func writeRunConfig(path string, fs *flag.FlagSet, set map[string]string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		fmt.Fprintf(w, "# The settings of this run, as positgan train's flags. Repeat the run with\n"+
			"#   positgan train --config %s --out ANOTHER_FOLDER\n"+
			"# (flags given on the command line override the file; --resume continues it here).\n", runConfigFile)
		var err error
		fs.VisitAll(func(fl *flag.Flag) {
			if err != nil || slices.Contains(runConfigSkip, fl.Name) {
				return
			}
			first, _, _ := strings.Cut(fl.Usage, "\n")
			fmt.Fprintf(w, "\n# %s\n", first)
			var v string
			if s, ok := set[fl.Name]; ok {
				v = tomlString(s)
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
	if m, ok := v.(multiValue); ok {
		var parts []string
		for _, s := range m.Strings() {
			parts = append(parts, tomlString(s))
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	g, ok := v.(flag.Getter)
	if !ok {
		return tomlString(v.String()), nil
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
		return tomlString(x), nil
	}
	return tomlString(v.String()), nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
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

// applyRunConfig sets the flags of fs from the run.toml file path, but
// those in given (the flags on the command line, which win); it adds the
// keys it sets to given. A key that is no flag of fs, or a value the flag
// refuses, is a usage error.
func applyRunConfig(fs *flag.FlagSet, path string, given map[string]bool) error {
	var kv map[string]any
	if _, err := toml.DecodeFile(path, &kv); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return usagef("--config %s: line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return fmt.Errorf("--config: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		if fs.Lookup(k) == nil || slices.Contains(runConfigSkip, k) {
			return usagef("--config %s: unknown key %q (the keys are train's flag names, such as steps)", path, k)
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
					return usagef("--config %s: %s: want strings in the array", path, k)
				}
				vals = append(vals, s)
			}
		default:
			return usagef("--config %s: %s: want a string, number or boolean", path, k)
		}
		for _, v := range vals {
			if err := fs.Set(k, v); err != nil {
				return usagef("--config %s: %s = %q: %v", path, k, v, err)
			}
		}
		given[k] = true
	}
	return nil
}
