package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/positgan/positgan/datasets"
)

// readmeShrink are the flags appended to a README command so that it runs
// in seconds: the same command at a tiny size (flags given last win). The
// figures the README prints beside these commands come from the full
// sizes, so their outputs are not compared.
var readmeShrink = map[string][]string{
	"train": {"--steps", "2", "--batch", "8", "--features", "4", "--sample-every", "0"},
	// Only where the command gives the sweep (a plan is run as written).
	"compare": {"--steps", "2", "--seeds", "1", "--n", "100", "--batch", "8"},
	// --fid measures on 100 test images of each domain, not 2000.
	"translate": {"--n", "100"},
	// The table of 4-bit rows (and the 8-bit ones) on 20 images, searching on 10.
	"deploy-compare": {"--n", "20", "--search-n", "10", "--bits", "4"},
}

// readmeSkip are the README commands the test does not run, by their
// first words, and why.
var readmeSkip = map[string]string{
	"go test": "a go test or benchmark command (CI runs the tests; benchmarks take minutes)",
}

// readmeCommand is one command of the README's code blocks.
type readmeCommand struct {
	line  int
	text  string   // as printed, without the comment
	args  []string // its words, after "positgan"
	stdin string   // a here-string's word and a newline
	want  string   // the output printed below a "$ " command, if any
}

// TestREADMECommands runs the commands the README prints, in order, in
// one temporary folder (absolute --out paths are taken inside it), so
// that a command can use what an earlier one wrote. Training commands
// run at a tiny size (readmeShrink); a command the README prints the
// output of must print exactly that output; commands that need a data
// set that is not installed are skipped, as are readmeSkip's.
func TestREADMECommands(t *testing.T) {
	runDocCommands(t, "../../README.md", 5)
}

// TestResultsCommands runs the commands of docs/results.md the same way,
// so that no command beside a published table rots.
func TestResultsCommands(t *testing.T) {
	runDocCommands(t, "../../docs/results.md", 10)
}

// runDocCommands runs the positgan commands of the Markdown file at path
// as TestREADMECommands describes; the file must hold at least min.
func runDocCommands(t *testing.T, path string, min int) {
	cmds, err := readmeCommands(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < min {
		t.Fatalf("found %d commands in %s; the parser is broken", len(cmds), path)
	}
	name := filepath.Base(path)
	t.Chdir(t.TempDir())
	var skippedOuts []string // what skipped commands would have written
	fashion := -1            // whether Fashion-MNIST is installed: unknown
	haveFashion := func() bool {
		if fashion < 0 {
			fashion = 0
			if _, err := datasets.Load("fashion-mnist", datasets.Options{Split: datasets.Test}); err == nil {
				fashion = 1
			}
		}
		return fashion == 1
	}
	haveSR := func() bool { // esrgan's sr-photos (python3-skimage, opencv-doc)
		_, err := datasets.LoadPhotos(datasets.SRPhotos, datasets.Test)
		return err == nil
	}
	for _, c := range cmds {
		if reason, ok := readmeSkipped(c, skippedOuts, haveFashion, haveSR); ok {
			t.Logf("%s line %d: %s: skipped: %s", name, c.line, c.text, reason)
			for i := 1; i < len(c.args); i++ {
				if c.args[i-1] == "--out" {
					skippedOuts = append(skippedOuts, c.args[i])
				}
			}
			continue
		}
		args := append([]string(nil), c.args...)
		shrunk := false
		if extra, ok := readmeShrink[args[0]]; ok && !(args[0] == "compare" && readmeRunsPlan(args)) {
			args, shrunk = append(args, extra...), true
		}
		for i := 1; i < len(args); i++ {
			if args[i-1] == "--out" && filepath.IsAbs(args[i]) {
				args[i] = "." + args[i]
			}
		}
		start := time.Now()
		out, stderr, code := runCLI(t, c.stdin, args...)
		t.Logf("%s line %d: %s: %.1f s", name, c.line, strings.Join(args, " "), time.Since(start).Seconds())
		if code != 0 {
			t.Errorf("%s line %d: %s\nran: positgan %s\nexit %d: %s", name, c.line, c.text, strings.Join(args, " "), code, stderr)
			continue
		}
		if c.want != "" && !shrunk && out != c.want {
			t.Errorf("%s line %d: %s\nprints:\n%s\n%s says:\n%s", name, c.line, c.text, out, name, c.want)
		}
	}
}

// readmeSkipped says whether the test leaves c out, and why: readmeSkip's
// commands, those that need Fashion-MNIST when it is not installed, and
// those that read esrgan's sr-photos when they are not installed, and
// those that read what a skipped command would have written (outs).
func readmeSkipped(c readmeCommand, outs []string, haveFashion, haveSR func() bool) (string, bool) {
	for prefix, reason := range readmeSkip {
		if strings.HasPrefix(c.text, prefix) {
			return reason, true
		}
	}
	fashion := false
	for i, a := range c.args {
		// cyclegan's default data set is the mnist-fashion toy.
		fashion = fashion || a == "fashion-mnist" || a == "mnist-fashion" ||
			i > 0 && c.args[i-1] == "--model" && a == "cyclegan" && !slices.Contains(c.args, "--dataset")
		for _, o := range outs {
			if a == o || strings.HasPrefix(a, o+"/") {
				return "reads " + o + ", which a skipped command writes", true
			}
		}
	}
	if fashion && !haveFashion() {
		return "Fashion-MNIST is not installed (apt install dataset-fashion-mnist)", true
	}
	// esrgan trains on sr-photos and upscale measures its held-out images
	// unless told otherwise.
	sr := slices.Contains(c.args, "esrgan") && !slices.Contains(c.args, "--dataset") ||
		len(c.args) > 0 && c.args[0] == "upscale" && !slices.Contains(c.args, "--in")
	if sr && !haveSR() {
		return "sr-photos are not installed (apt install python3-skimage opencv-doc)", true
	}
	return "", false
}

// readmeRunsPlan reports whether compare args run an existing plan (no
// sweep flags, which would write another).
func readmeRunsPlan(args []string) bool {
	plan, sweep := false, false
	for _, a := range args {
		name := strings.TrimLeft(a, "-")
		switch {
		case a == "--plan":
			plan = true
		case strings.HasPrefix(a, "-") && slices.Contains(planFlags, name):
			sweep = true
		}
	}
	return plan && !sweep
}

var readmeComment = regexp.MustCompile(`\s{2,}#.*$`)

// readmeCommands returns the positgan commands of the README's indented
// code blocks: lines "positgan ...", "$ positgan ..." (then the lines up
// to the next "$ " or the block's end are its output) and "go run
// ./cmd/positgan ...". Go test commands are returned too, for readmeSkip.
func readmeCommands(path string) ([]readmeCommand, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cmds []readmeCommand
	var last *readmeCommand // a "$ " command whose output follows
	for i, line := range strings.Split(string(data), "\n") {
		code, ok := strings.CutPrefix(line, "    ")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "|") {
			last = nil
			continue
		}
		text, dollar := strings.CutPrefix(code, "$ ")
		text = strings.TrimSpace(readmeComment.ReplaceAllString(text, ""))
		var rest string
		switch {
		case strings.HasPrefix(text, "positgan "):
			rest = strings.TrimPrefix(text, "positgan ")
		case strings.HasPrefix(text, "go run ./cmd/positgan "):
			rest = strings.TrimPrefix(text, "go run ./cmd/positgan ")
		case strings.HasPrefix(text, "go test "):
			cmds = append(cmds, readmeCommand{line: i + 1, text: text})
			last = nil
			continue
		default:
			if last != nil && !dollar {
				last.want += code + "\n"
			}
			continue
		}
		c := readmeCommand{line: i + 1, text: text}
		if words, here, ok := strings.Cut(rest, "<<<"); ok {
			rest = words
			w, err := shellWords(strings.TrimSpace(here))
			if err != nil || len(w) != 1 {
				return nil, fmt.Errorf("%s line %d: here-string %q", filepath.Base(path), i+1, here)
			}
			c.stdin = w[0] + "\n"
		}
		if c.args, err = shellWords(rest); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", filepath.Base(path), i+1, err)
		}
		cmds = append(cmds, c)
		last = nil
		if dollar {
			last = &cmds[len(cmds)-1]
		}
	}
	return cmds, nil
}

// shellWords splits s into words as a POSIX shell does for the README's
// commands: blanks separate words, single quotes quote everything, double
// quotes everything but a backslash before " or \.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i, inWord = i+1+j, true
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, fmt.Errorf("unclosed \" in %q", s)
			}
			inWord = true
		case '\\':
			if i+1 < len(s) {
				i++
				w.WriteByte(s[i])
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"format quantize 'posit(8,1)'", []string{"format", "quantize", "posit(8,1)"}},
		{`a  "b c" d\ e`, []string{"a", "b c", "d e"}},
		{`x "say \"hi\""`, []string{"x", `say "hi"`}},
		{"''", []string{""}},
	} {
		got, err := shellWords(tc.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := shellWords("'open"); err == nil {
		t.Error("shellWords accepted an unclosed quote")
	}
}

// Without Fashion-MNIST or sr-photos, the commands that need them are
// skipped, and so are those that read what they would have written.
func TestREADMESkipped(t *testing.T) {
	no := func() bool { return false }
	outs := []string{"cyc/fp32"}
	for _, tc := range []struct {
		text string
		skip bool
	}{
		{"go test ./...", true},
		{"positgan train --model cyclegan --out cyc/fp32", true},
		{"positgan train --model cyclegan --dataset horse2zebra --out h2z", false},
		{"positgan eval fid mnist fashion-mnist", true},
		{"positgan translate --checkpoint cyc/fp32/checkpoint.safetensors --fid", true},
		{"positgan translate --checkpoint cyc/fp32x/checkpoint.safetensors", false},
		{"positgan train --steps 3", false},
		{"positgan train --model esrgan --steps 3", true},
		{"positgan train --model esrgan --dataset photos --steps 3", false},
		{"positgan upscale --checkpoint c --out up", true},
		{"positgan upscale --checkpoint c --in photos --out up", false},
	} {
		words, err := shellWords(strings.TrimPrefix(tc.text, "positgan "))
		if err != nil {
			t.Fatal(err)
		}
		if reason, got := readmeSkipped(readmeCommand{text: tc.text, args: words}, outs, no, no); got != tc.skip {
			t.Errorf("%s: skipped %v (%s), want %v", tc.text, got, reason, tc.skip)
		}
	}
}
