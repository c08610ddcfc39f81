package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README is read in five minutes: it stays short, and the results
// live in docs/results.md.
func TestREADMELength(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 200 {
		t.Errorf("README.md has %d lines; keep it at 200 or fewer and move tables to docs/results.md", n)
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)#\s]+\.md)(#[^)\s]+)?\)`)

// slug returns the anchor GitHub gives a Markdown heading: lower case,
// punctuation dropped, spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocLinks: every link from the README and docs/results.md to a
// Markdown page names a page that exists and, with #anchor, one of its
// headings, so that a figure's link leads to its table.
func TestDocLinks(t *testing.T) {
	for _, from := range []string{"../../README.md", "../../docs/results.md"} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			target := filepath.Join(filepath.Dir(from), m[1])
			page, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", filepath.Base(from), m[1])
				continue
			}
			if m[2] == "" {
				continue
			}
			found := false
			for _, line := range strings.Split(string(page), "\n") {
				if h, ok := strings.CutPrefix(line, "#"); ok && "#"+slug(strings.TrimLeft(h, "#")) == m[2] {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s links to %s%s: no such heading", filepath.Base(from), m[1], m[2])
			}
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"FID at d = 2048":                       "fid-at-d--2048",
		"Deploying in 8, 6, 5 and 4 bits":       "deploying-in-8-6-5-and-4-bits",
		"Image-to-image translation (CycleGAN)": "image-to-image-translation-cyclegan",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
