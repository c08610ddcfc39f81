// Package tomlsafe decodes TOML from files that come from other people
// and machines (policies, run.toml, checkpoint metadata) within limits:
// the TOML decoder recurses once per level of nesting and allocates per
// level, so 40 KB of nested inline tables can take gigabytes and deep
// arrays overflow the stack. The limits are checked on the text before
// the decoder sees it.
package tomlsafe

import (
	"bytes"
	"fmt"
	"io"

	"github.com/BurntSushi/toml"
)

// The limits, documented in docs/reliability.md.
const (
	// MaxBytes is the largest TOML text read. Policies and run.toml are a
	// few kilobytes.
	MaxBytes = 1 << 20
	// MaxDepth bounds the nesting of arrays, inline tables and dotted
	// keys (a.b.c counts 3) together.
	MaxDepth = 32
)

// Decode reads at most MaxBytes from r, checks the nesting (Check) and
// decodes the text into v as toml.Decode does.
func Decode(r io.Reader, v any) (toml.MetaData, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return toml.MetaData{}, err
	}
	if len(data) > MaxBytes {
		return toml.MetaData{}, fmt.Errorf("toml: longer than %d bytes", MaxBytes)
	}
	if err := Check(data); err != nil {
		return toml.MetaData{}, err
	}
	return toml.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// Check returns an error if the TOML text nests deeper than MaxDepth.
// It reads the text as TOML's lexer does only as far as nesting needs:
// strings (basic, literal, multi-line) and comments are skipped, and
// brackets, braces and the dots of keys counted. It never counts less
// nesting than the decoder would meet, so a text it accepts decodes
// within the limit; malformed text is left to the decoder's error.
func Check(data []byte) error {
	depth := 0    // open [ and {
	keyDots := 0  // dots in the key being read
	inKey := true // reading a key (line start, after '{' or ','), or a header
	line := 1     // of the current position, for the error
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n':
			line++
			// A key may start on the next line (at the top level, or in
			// an inline table where TOML 1.1 allows newlines); in an
			// array this may count a float's dot: over-counting is safe.
			inKey, keyDots = true, 0
		case c == '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i-- // the newline is handled above
		case c == '"' || c == '\'':
			end, nl, ok := skipString(data, i)
			if !ok {
				return nil // unterminated: the decoder reports it
			}
			line += nl
			i = end
		case c == '[' || c == '{':
			depth++
			if c == '{' {
				inKey, keyDots = true, 0
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
			if depth == 0 {
				keyDots = 0
			}
		case c == '=':
			inKey = false
			keyDots = 0
		case c == ',':
			inKey = true // in an inline table, the next key; in an array, harmless
			keyDots = 0
		case c == '.' && inKey:
			keyDots++
		}
		if depth+keyDots > MaxDepth {
			return fmt.Errorf("toml: line %d: nested deeper than %d levels", line, MaxDepth)
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string that starts
// at data[i] (a quote), the newlines inside it, and whether it ends.
func skipString(data []byte, i int) (end, newlines int, ok bool) {
	q := data[i]
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q { // multi-line
		for j := i + 3; j+2 < len(data); j++ {
			switch {
			case data[j] == '\\' && q == '"':
				j++
				if j < len(data) && data[j] == '\n' {
					newlines++
				}
			case data[j] == '\n':
				newlines++
			case data[j] == q && data[j+1] == q && data[j+2] == q:
				// Up to two more quotes may close the string ("""a"""").
				k := j + 3
				for n := 0; n < 2 && k < len(data) && data[k] == q; n++ {
					k++
				}
				return k - 1, newlines, true
			}
		}
		return 0, 0, false
	}
	for j := i + 1; j < len(data); j++ {
		switch {
		case data[j] == '\\' && q == '"':
			j++
		case data[j] == '\n':
			return 0, 0, false
		case data[j] == q:
			return j, 0, true
		}
	}
	return 0, 0, false
}
