package main

import (
	"strings"
	"unicode"
)

// helpWidth is the width help texts are wrapped to. The texts in the
// commands' sources are wrapped by hand at about this width too, but help
// re-wraps them, so that an edited sentence never leaves a short line or
// an over-long one, and so that a command list can show a whole sentence
// of a summary rather than its first source line.
const helpWidth = 100

// reflow re-wraps text to width columns. A paragraph is a run of lines
// that start with a non-space character: its lines are joined and wrapped
// again. Blank lines and indented lines (lists, command synopses) are kept
// as they are.
func reflow(text string, width int) string {
	var out, para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, wrap(strings.Join(para, " "), width, "", "")...)
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || unicode.IsSpace(rune(line[0])) {
			flush()
			out = append(out, line)
			continue
		}
		para = append(para, strings.TrimSpace(line))
	}
	flush()
	return strings.Join(out, "\n")
}

// wrap breaks s into lines of at most width columns at spaces, the first
// line prefixed by first and the others by indent. A word longer than a
// line stays whole.
func wrap(s string, width int, first, indent string) []string {
	var lines []string
	line := first
	empty := true // line holds no word yet
	for _, w := range strings.Fields(s) {
		if !empty && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += w
		empty = false
	}
	return append(lines, line)
}

// firstSentence returns the first sentence of the first paragraph of a
// summary, its lines joined: what a command list shows. A sentence ends
// at a period followed by a space and a capital letter, unless the
// period ends an abbreviation such as "e.g.".
func firstSentence(summary string) string {
	para, _, _ := strings.Cut(summary, "\n\n")
	s := strings.Join(strings.Fields(para), " ")
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '.' || s[i+1] != ' ' || !unicode.IsUpper(rune(s[i+2])) {
			continue
		}
		word := s[strings.LastIndexByte(s[:i], ' ')+1 : i]
		switch strings.ToLower(word) {
		case "e.g", "i.e", "cf", "al", "etc", "vs":
			continue
		}
		return s[:i+1]
	}
	return s
}

// wrapFlagDefaults re-wraps the flag descriptions of flag.PrintDefaults
// output (the lines that start with four spaces and a tab) to width
// columns, the tab counting as up to column 8.
func wrapFlagDefaults(s string, width int) string {
	const lead = "    \t"
	var out []string
	for _, line := range strings.Split(s, "\n") {
		text, ok := strings.CutPrefix(line, lead)
		if !ok || len(text)+8 <= width {
			out = append(out, line)
			continue
		}
		for _, l := range wrap(text, width-8, "", "") {
			out = append(out, lead+l)
		}
	}
	return strings.Join(out, "\n")
}
