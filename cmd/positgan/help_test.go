package main

import (
	"strings"
	"testing"
)

// TestHelpComplete walks every command and subcommand and checks its help:
// a command list shows each summary's whole first sentence (once, the list
// showed only the first source line of a summary, cut mid-sentence), a
// command's own help holds its whole summary, and re-wrapped lines fit
// helpWidth.
func TestHelpComplete(t *testing.T) {
	var walk func(c *command, args []string)
	walk = func(c *command, args []string) {
		out, stderr, code := runCLI(t, "", append(append([]string(nil), args...), "--help")...)
		name := "positgan " + strings.Join(args, " ")
		if code != 0 || stderr != "" {
			t.Errorf("%s --help: exit %d, stderr %q", name, code, stderr)
			return
		}
		checkHelpWidth(t, name, out)
		if c.setup != nil {
			if got, want := strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(c.summary), " "); !strings.Contains(got, want) {
				t.Errorf("%s --help does not hold its whole summary %q:\n%s", name, want, out)
			}
			return
		}
		entries := helpEntries(out)
		checkHelpColumns(t, name, out)
		for _, s := range c.sub {
			got, ok := entries[s.name]
			if !ok {
				t.Errorf("%s --help does not list %s:\n%s", name, s.name, out)
				continue
			}
			para, _, _ := strings.Cut(s.summary, "\n\n")
			para = strings.Join(strings.Fields(para), " ")
			if !strings.HasPrefix(para, got) || (got != para && !strings.HasSuffix(got, ".")) {
				t.Errorf("%s --help lists %s as %q: not a whole sentence of %q", name, s.name, got, para)
			}
			walk(s, append(append([]string(nil), args...), s.name))
		}
	}
	walk(root(), nil)
}

// helpEntries returns the descriptions of a command list, by command
// name, continuation lines joined.
func helpEntries(out string) map[string]string {
	entries := map[string]string{}
	_, list, _ := strings.Cut(out, "Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	last := ""
	for _, line := range strings.Split(list, "\n") {
		if strings.HasPrefix(line, "   ") { // continuation
			entries[last] += " " + strings.TrimSpace(line)
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		last = f[0]
		entries[last] = strings.Join(f[1:], " ")
	}
	return entries
}

// checkHelpWidth checks that the lines help wraps (not the usage line nor the indented
// synopses and lists a summary holds) fit helpWidth, but for a single
// word longer than that.
func checkHelpWidth(t *testing.T, name, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		wrapped := !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "Usage:") || strings.HasPrefix(line, "    \t")
		if wrapped && len([]rune(strings.ReplaceAll(line, "\t", "    "))) > helpWidth && len(strings.Fields(line)) > 1 {
			t.Errorf("%s --help: line longer than %d columns: %q", name, helpWidth, line)
		}
	}
}

// checkHelpColumns checks that the descriptions of a command list start
// in one column, however long a command's name.
func checkHelpColumns(t *testing.T, name, out string) {
	t.Helper()
	_, list, _ := strings.Cut(out, "Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	col := -1
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(line, "   ") {
			continue
		}
		c := strings.Index(line[2+len(f[0]):], f[1]) + 2 + len(f[0])
		if col >= 0 && c != col {
			t.Errorf("%s --help: description of %s starts in column %d, others in %d", name, f[0], c, col)
		}
		col = c
	}
}

func TestFirstSentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"one line", "one line"},
		{"Read a line from stdin, convert it to\nfloat32. Then print it.", "Read a line from stdin, convert it to float32."},
		{"SSIM as Wang et al. 2004 and\nscikit-image. More.", "SSIM as Wang et al. 2004 and scikit-image."},
		{"the name, e.g. FID (LeNet). Next.", "the name, e.g. FID (LeNet)."},
		{"summary\n\nDetails. More.", "summary"},
		{"ends with a period.", "ends with a period."},
	} {
		if got := firstSentence(tc.in); got != tc.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReflow(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"a b c\nd e", 5, "a b c\nd e"},
		{"a b\nc d e f", 5, "a b c\nd e f"},
		{"para one\n\npara two", 80, "para one\n\npara two"},
		{"Models:\n  cgan  kept as it is, however long\n  dcgan", 10, "Models:\n  cgan  kept as it is, however long\n  dcgan"},
		{"averyveryverylongword x", 5, "averyveryverylongword\nx"},
	} {
		if got := reflow(tc.in, tc.width); got != tc.want {
			t.Errorf("reflow(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

func TestWrapFlagDefaults(t *testing.T) {
	in := "  -x string\n    \tone two three four\n  -y\tshort\n"
	want := "  -x string\n    \tone two\n    \tthree four\n  -y\tshort\n"
	if got := wrapFlagDefaults(in, 18); got != want {
		t.Errorf("wrapFlagDefaults = %q, want %q", got, want)
	}
}
