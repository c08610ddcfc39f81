package quant

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// MaxTableValues is the most values a lookup table may list.
const MaxTableValues = 1 << 16

// NewTable returns the lookup-table format whose code c has the value
// values[c]: table(v0,v1,...), as Parse reads it. It has the fewest bits
// that number len(values) codes; codes past the list, like NaN entries,
// have no value (they decode to NaN).
//
// Rounding is to the nearest value; a tie goes to the value with the even
// code, and between two even or two odd codes to the smaller one (so does
// a choice between codes of equal value). -0 and +0 are distinct values
// when both are listed, and each keeps its sign. Values beyond the largest
// or below the smallest saturate, ±Inf included. NaN rounds to the first
// code without a value; a table in which every code has a value is an
// error, since NaN would have no code. Values are float64; Round returns
// the nearest float32 to the value. Stochastic rounding picks one of the
// two values that bracket x, the upper with probability (x-lo)/(hi-lo).
func NewTable(values []float64) (Format, error) {
	return newTable(tableName(values), values)
}

// tableName is the canonical inline name of a table.
func tableName(values []float64) string {
	var b strings.Builder
	b.WriteString("table(")
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case math.IsNaN(v):
			b.WriteString("nan")
		case math.IsInf(v, 1):
			b.WriteString("inf")
		case math.IsInf(v, -1):
			b.WriteString("-inf")
		default:
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	b.WriteByte(')')
	return b.String()
}

// newTable builds (or finds) the table named name.
func newTable(name string, values []float64) (Format, error) {
	if len(values) == 0 {
		return nil, FormatError("table: no values")
	}
	if len(values) > MaxTableValues {
		return nil, FormatError(fmt.Sprintf("table: %d values; at most %d", len(values), MaxTableValues))
	}
	key := name
	registry.RLock()
	m, ok := registry.made[key]
	registry.RUnlock()
	if ok {
		return m.f, nil
	}
	nb := max(1, bits.Len(uint(len(values)-1)))
	dec := make([]float64, 1<<nb)
	for i := range dec {
		dec[i] = math.NaN()
	}
	copy(dec, values)
	short := name
	if len(short) > 60 {
		short = short[:57] + "..."
	}
	t, err := newTableLookup(short, nb, dec)
	if err != nil {
		return nil, err
	}
	t.name = name
	return intern(key, nil, t)
}

// parseTable parses the arguments of table(v0,v1,...).
func parseTable(args []string) (Format, error) {
	values := make([]float64, len(args))
	for i, a := range args {
		v, err := parseTableValue(a)
		if err != nil {
			return nil, FormatError(fmt.Sprintf("table value %d: %v", i, err))
		}
		values[i] = v
	}
	return NewTable(values)
}

// parseTableValue parses one value: a decimal or hex float, inf, -inf,
// nan or nar.
func parseTableValue(s string) (float64, error) {
	if strings.EqualFold(s, "nar") {
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// tableFile reports whether name is table:FILE, and returns FILE.
func tableFile(name string) (string, bool) {
	s := strings.TrimSpace(name)
	if len(s) < 6 || !strings.EqualFold(s[:6], "table:") {
		return "", false
	}
	return strings.TrimSpace(s[6:]), true
}

// parseTableFile reads table:FILE. The file lists one value per code, in
// code order, one a line; a line may also be "code,value" (as `positgan
// format table` writes it), the code then having to be the line's. Blank
// lines, lines starting with #, and a first line that is not a number (a
// CSV header) are skipped.
func parseTableFile(path string) (Format, error) {
	if path == "" {
		return nil, FormatError("table: wants a file name after table:")
	}
	b, err := readTableFile(path)
	if err != nil {
		return nil, err
	}
	var values []float64
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		code, val, hasCode := strings.Cut(s, ",")
		if !hasCode {
			val = code
		}
		v, err := parseTableValue(strings.TrimSpace(val))
		if err != nil && len(values) == 0 && line == firstDataLine(b) {
			continue // a header
		}
		if err != nil {
			return nil, FormatError(fmt.Sprintf("table:%s: line %d: %v", path, line, err))
		}
		if hasCode {
			c, err := strconv.ParseUint(strings.TrimSpace(code), 0, 32)
			if err != nil || c != uint64(len(values)) {
				return nil, FormatError(fmt.Sprintf("table:%s: line %d: code %q, want %d (codes in order)", path, line, code, len(values)))
			}
		}
		if len(values) == MaxTableValues {
			return nil, FormatError(fmt.Sprintf("table:%s: more than %d values", path, MaxTableValues))
		}
		values = append(values, v)
	}
	if err := sc.Err(); err != nil {
		return nil, FormatError(fmt.Sprintf("table:%s: %v", path, err))
	}
	if len(values) == 0 {
		return nil, FormatError(fmt.Sprintf("table:%s: no values", path))
	}
	// The inline table itself: its name lists the values, so a policy,
	// checkpoint or plan that holds it carries the values, never the path.
	return NewTable(values)
}

// maxTableFileBytes bounds a table file: MaxTableValues lines of
// "code,value" with values in full precision fit easily.
const maxTableFileBytes = 8 << 20

// readTableFile reads the file of table:FILE, which must be a regular file
// (a FIFO or a device would block or never end) of at most
// maxTableFileBytes.
func readTableFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("quant: table: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("quant: table: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, FormatError(fmt.Sprintf("table:%s: not a regular file", path))
	}
	if fi.Size() > maxTableFileBytes {
		return nil, FormatError(fmt.Sprintf("table:%s: %d bytes; a table file has at most %d", path, fi.Size(), maxTableFileBytes))
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTableFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("quant: table: %w", err)
	}
	if len(b) > maxTableFileBytes {
		return nil, FormatError(fmt.Sprintf("table:%s: grew past %d bytes while read", path, maxTableFileBytes))
	}
	return b, nil
}

// firstDataLine returns the number of the first line of b that is neither
// blank nor a comment.
func firstDataLine(b []byte) int {
	for i, l := range strings.Split(string(b), "\n") {
		if s := strings.TrimSpace(l); s != "" && s[0] != '#' {
			return i + 1
		}
	}
	return 0
}
