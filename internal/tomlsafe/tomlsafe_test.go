package tomlsafe

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	deep := func(open, close string, n int) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"policy", "name = \"x\"\npreset = \"fp32\"\n[default]\nall = \"posit(8,1)\"\n[[layer]]\nmatch = \"G/*\"\nweight = \"fp16\" # a comment [[[[\n", true},
		{"floats and dates", "a = [1.5, 2.5, 3.5]\nb = 1979-05-27T07:32:00.999\n", true},
		{"dots in strings", "a = \"" + strings.Repeat(".", 100) + "\"\nb = '" + strings.Repeat("[", 100) + "'\n", true},
		{"multi-line strings", "a = \"\"\"\n" + strings.Repeat("{", 100) + "\n\"\"\"\nb = '''" + strings.Repeat("]", 100) + "'''\n", true},
		{"escaped quote", `a = "\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["` + "\n", true},
		{"arrays at the limit", "x = " + deep("[", "]", MaxDepth) + "\n", true},
		{"arrays too deep", "x = " + deep("[", "]", MaxDepth+1) + "\n", false},
		{"arrays 2M deep", "x = " + deep("[", "]", 1<<20) + "\n", false},
		{"inline tables too deep", "x = " + strings.Repeat("{a = ", 10000) + "1" + strings.Repeat("}", 10000) + "\n", false},
		{"dotted header too deep", "[" + strings.Repeat("a.", 20000) + "a]\n", false},
		{"dotted key too deep", strings.Repeat("a.", 100) + "a = 1\n", false},
		{"dotted key in inline table", "x = {" + strings.Repeat("a.", 40) + "a = 1}\n", false},
		{"unterminated string", "a = \"" + strings.Repeat("[", 100), true},
	} {
		err := Check([]byte(tc.text))
		if (err == nil) != tc.ok {
			t.Errorf("%s: Check = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// Decode refuses texts over MaxBytes or MaxDepth before decoding, and
// decodes the rest as the toml package does.
func TestDecode(t *testing.T) {
	var v map[string]any
	if _, err := Decode(strings.NewReader("a = 1\n[b]\nc = [1, 2]\n"), &v); err != nil || v["a"] != int64(1) {
		t.Fatalf("Decode = %v, %v", v, err)
	}
	if _, err := Decode(strings.NewReader(strings.Repeat("#", MaxBytes+1)), &v); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("Decode of MaxBytes+1 bytes: %v", err)
	}
	if _, err := Decode(strings.NewReader("x = "+strings.Repeat("[", 100)+strings.Repeat("]", 100)), &v); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("Decode of deep arrays: %v", err)
	}
}

// FuzzCheck: any text is checked without a panic, and a text Check
// accepts decodes without a panic.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"a = 1", "[a.b]\nc = [[1], {d = 2}]", "x = '''\n[[['''", `y = "\"["`, "z = {a.b = 1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Check([]byte(s)) == nil {
			var v map[string]any
			Decode(strings.NewReader(s), &v)
		}
	})
}
