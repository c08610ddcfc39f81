package quant

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse returns the format a name denotes. The grammar (case-insensitive,
// spaces ignored):
//
//	posit(n,es)  p(n,es)  posit<n>_<es>     posit, 2<=n<=32, 0<=es<=4
//	posit(n,es,scale=k)                     with exponent bias k
//	float(e,m[,opt=v...])  fp(1,e,m[,...])  IEEE-style float
//	fp32 fp16 bf16 fp8-e4m3 fp8-e5m2 fp8-ibm-fwd fp8-ibm-bwd
//	fp6-e2m3 fp6-e3m2 fp4-e2m1              the OCP MX element formats
//	fixed(wl,fl)                            two's-complement fixed point
//	table(v0,v1,...)  table:FILE            lookup table (see NewTable)
//	name  name(args...)                     a registered family (see Register)
//
// Block-scaled formats (mxfp8-e4m3, posit(8,1,block=32), ...) are not
// Formats; ParseBlock parses them.
// See docs/formats.md for the float options.
//
// table:FILE reads the file FILE: Parse is for names a user typed. A name
// that comes from a file (a policy, a checkpoint, a .pgmodel, a plan) is
// parsed with ParseSelfContained, which never opens a file.
func Parse(name string) (Format, error) {
	if path, ok := tableFile(name); ok {
		return parseTableFile(path) // the path keeps its case and spaces
	}
	return ParseSelfContained(name)
}

// ParseSelfContained parses a name as Parse does, but refuses table:FILE:
// it never opens a file, so a name read from a file that came from
// elsewhere cannot make the program read another path. A table read from
// a file is the same Format as its inline table(v0,v1,...), whose name
// String gives, so formats written into files travel by value.
func ParseSelfContained(name string) (Format, error) {
	if _, ok := tableFile(name); ok {
		return nil, FormatError(fmt.Sprintf("%.40q names a file: inside a file a lookup table is given by its values, table(v0,v1,...)", name))
	}
	f, err := parseBuiltin(name)
	if _, unknown := err.(unknownFormat); !unknown {
		return f, err
	}
	s := strings.ToLower(strings.Join(strings.Fields(name), ""))
	head, args, _, _ := splitCall(s)
	if f, ok, err := parseRegistered(name, head, args); ok {
		return f, err
	}
	return nil, err.(unknownFormat).FormatError
}

// unknownFormat is the error of parseBuiltin for a name of no built-in
// family, which the registry may know.
type unknownFormat struct{ FormatError }

// parseBuiltin is Parse without the registry and table files.
func parseBuiltin(name string) (Format, error) {
	s := strings.ToLower(strings.Join(strings.Fields(name), ""))
	if s == "" {
		return nil, FormatError("empty format name")
	}
	if isBlockName(s) {
		return nil, FormatError(fmt.Sprintf("%q is a block-scaled format, which rounds blocks of values rather than one value: use ParseBlock", name))
	}
	head, args, hasArgs, err := splitCall(s)
	if err != nil {
		return nil, FormatError(fmt.Sprintf("%q: %v", name, err))
	}
	if !hasArgs {
		if n, es, ok := positShorthand(s); ok {
			return NewPosit(n, es)
		}
		if f, ok := floatPreset(s); ok {
			return f, nil
		}
		return nil, unknownFormat{FormatError(fmt.Sprintf("%q: unknown format (try posit(8,1), float(4,3), fp8-e4m3, fixed(8,4), table(-1,0,1), or register it)", name))}
	}
	var f Format
	switch head {
	case "posit", "p":
		f, err = parsePosit(args)
	case "float", "fp":
		f, err = parseFloat(head, args)
	case "fixed":
		f, err = parseFixed(args)
	case "table":
		f, err = parseTable(args)
	default:
		return nil, unknownFormat{FormatError(fmt.Sprintf("%q: unknown format %q", name, head))}
	}
	if err != nil {
		return nil, err // sub-parsers name the format and what is wrong with it
	}
	return f, nil
}

// MustParse is Parse for names known to be valid; it panics on error.
func MustParse(name string) Format {
	f, err := Parse(name)
	if err != nil {
		panic(err)
	}
	return f
}

// splitCall splits "head(a,b,c)" into head and its arguments.
func splitCall(s string) (head string, args []string, ok bool, err error) {
	i := strings.IndexByte(s, '(')
	if i < 0 {
		if strings.ContainsAny(s, ")") {
			return "", nil, false, fmt.Errorf("unbalanced parentheses")
		}
		return s, nil, false, nil
	}
	if !strings.HasSuffix(s, ")") || strings.Count(s, "(") != 1 || strings.Count(s, ")") != 1 {
		return "", nil, false, fmt.Errorf("unbalanced parentheses")
	}
	inner := s[i+1 : len(s)-1]
	if inner == "" {
		return s[:i], nil, true, nil
	}
	return s[:i], strings.Split(inner, ","), true, nil
}

// positShorthand recognises posit<n>_<es>, e.g. posit8_1.
func positShorthand(s string) (n, es int, ok bool) {
	rest, found := strings.CutPrefix(s, "posit")
	if !found {
		return 0, 0, false
	}
	a, b, found := strings.Cut(rest, "_")
	if !found {
		return 0, 0, false
	}
	n, err1 := strconv.Atoi(a)
	es, err2 := strconv.Atoi(b)
	return n, es, err1 == nil && err2 == nil
}

func parsePosit(args []string) (Format, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, FormatError("posit takes (n,es) or (n,es,scale=k)")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return nil, FormatError(fmt.Sprintf("posit width %q is not an integer", args[0]))
	}
	es, err := strconv.Atoi(args[1])
	if err != nil {
		return nil, FormatError(fmt.Sprintf("posit es %q is not an integer", args[1]))
	}
	p, err := NewPosit(n, es)
	if err != nil || len(args) == 2 {
		return p, err
	}
	v, ok := strings.CutPrefix(args[2], "scale=")
	if !ok {
		return nil, FormatError(fmt.Sprintf("posit option %q: want scale=k", args[2]))
	}
	k, err := strconv.Atoi(v)
	if err != nil {
		return nil, FormatError(fmt.Sprintf("posit scale %q is not an integer", v))
	}
	return p.withScale(k)
}

// intArg parses one integer argument of a format name.
func intArg(what, s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, FormatError(fmt.Sprintf("%s %q is not an integer", what, s))
	}
	return v, nil
}

// SplitNames splits a comma-separated list of names at the commas outside
// parentheses, so that "posit(8,1),fp16" is two names; the names are not
// trimmed. Lists of formats and of policies (whose names may be formats)
// are split with it.
func SplitNames(s string) []string {
	var names []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				names = append(names, s[start:i])
				start = i + 1
			}
		}
	}
	return append(names, s[start:])
}
