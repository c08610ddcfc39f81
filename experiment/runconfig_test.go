package experiment_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/experiment"
)

func TestTOMLString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"tab\there", `"tab\u0009here"`},
		{"posit(8,1)", `"posit(8,1)"`},
	} {
		if got := experiment.TOMLString(tc.in); got != tc.want {
			t.Errorf("TOMLString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// list is a repeatable flag, as positgan train's --option is.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Strings() []string  { return *l }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// A run.toml written from one FlagSet sets another alike, a repeatable
// flag one value at a time; the flags given on the command line win, and
// a key that is no flag is a *RunConfigError.
func TestRunConfigRoundTrip(t *testing.T) {
	write := flag.NewFlagSet("train", flag.ContinueOnError)
	var l list
	write.Var(&l, "option", "model option")
	write.Int("steps", 5, "steps")
	write.Float64("lr", 2, "learning rate")
	write.Bool("resume", false, "continue")
	if err := write.Parse([]string{"--option", "a=1", "--option", "b=2", "--steps", "7", "--resume"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), experiment.RunConfigFile)
	if err := experiment.WriteRunConfig(path, write, map[string]string{"steps": "9"}, []string{"resume"}); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	for _, want := range []string{"\noption = [\"a=1\", \"b=2\"]\n", "\nsteps = \"9\"\n", "\nlr = 2.0\n"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("run.toml lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), "\nresume =") {
		t.Errorf("run.toml holds the skipped flag:\n%s", text)
	}

	read := flag.NewFlagSet("train", flag.ContinueOnError)
	var back list
	read.Var(&back, "option", "model option")
	steps := read.Int("steps", 5, "steps")
	lr := read.Float64("lr", 1, "learning rate")
	given := map[string]bool{"lr": true}
	if err := experiment.ApplyRunConfig(read, path, given, nil); err != nil {
		t.Fatal(err)
	}
	if back.String() != "a=1,b=2" || *steps != 9 || *lr != 1 || !given["steps"] {
		t.Errorf("read back --option %s --steps %d --lr %g (given %v)", back.String(), *steps, *lr, given)
	}

	var ce *experiment.RunConfigError
	if err := experiment.ApplyRunConfig(flag.NewFlagSet("x", flag.ContinueOnError), path, map[string]bool{}, nil); !errors.As(err, &ce) {
		t.Errorf("unknown keys: %v, want a *RunConfigError", err)
	}
}
