package policy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// lf builds LayerFormats from format names ("" or "none": nil).
func lf(weight, act, out, err, wgrad string, acc quant.Accumulation, accFmt string, r quant.Rounding) nn.LayerFormats {
	f := func(s string) quant.Format {
		if s == "" || s == "none" {
			return nil
		}
		return quant.MustParse(s)
	}
	// The key rounding sets the rounding of all five dot-product roles,
	// whether or not they have a format.
	q := func(s string) nn.Quantizer { return nn.Quantizer{Format: f(s), Rounding: r} }
	return nn.LayerFormats{Weight: q(weight), Act: q(act), Out: q(out), Err: q(err), WGrad: q(wgrad),
		Accum: acc, AccumFormat: f(accFmt)}
}

func TestPolicyFor(t *testing.T) {
	p := &policy.Policy{}
	for _, s := range []string{
		"all=posit(8,1)",
		"weight=posit(8,1,scale=4)",
		"G/*:out=posit(16,1)",
		"G/conv*:weight=none",
		"G/*:accum=quire",
		"D/*:rounding=stochastic",
		"*/fc:dot=posit(6,1)",
		"G/*:accum_format=posit(16,2)", // same glob again: updates the first G/* override
	} {
		if err := p.Apply(s); err != nil {
			t.Fatalf("Apply(%q): %v", s, err)
		}
	}
	const p8, p8w = "posit(8,1)", "posit(8,1,scale=4)"
	tests := []struct {
		layer string
		want  nn.LayerFormats
	}{
		{"X", lf(p8w, p8, p8, p8, p8, quant.AccumFP32, "", quant.Nearest)},
		{"G/fc", lf("posit(6,1)", "posit(6,1)", "posit(16,1)", p8, p8, quant.AccumQuire, "posit(16,2)", quant.Nearest)},
		{"G/conv1", lf("", p8, "posit(16,1)", p8, p8, quant.AccumQuire, "posit(16,2)", quant.Nearest)},
		{"G/block/conv1", lf(p8w, p8, p8, p8, p8, quant.AccumFP32, "", quant.Nearest)}, // * does not cross /
		{"D/conv1", lf(p8w, p8, p8, p8, p8, quant.AccumFP32, "", quant.Stochastic)},
		{"D/fc", lf("posit(6,1)", "posit(6,1)", p8, p8, p8, quant.AccumFP32, "", quant.Stochastic)},
	}
	for _, tt := range tests {
		if got := p.For(tt.layer); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("For(%q) =\n%+v\nwant\n%+v", tt.layer, got, tt.want)
		}
	}
	var nilPolicy *policy.Policy
	if got := nilPolicy.For("x"); got != (nn.LayerFormats{}) {
		t.Errorf("nil policy: For = %+v, want float32 everywhere", got)
	}
}

func TestPolicyApplyErrors(t *testing.T) {
	tests := []struct {
		setting, want string
	}{
		{"weight", "want [glob:]key=value"},
		{"wieght=posit(8,1)", `unknown key "wieght"`},
		{"G/*:wieght=posit(8,1)", `unknown key "wieght"`},
		{"weight=posit(8,9)", "posit(8,9)"},
		{"weight=nosuchformat", "nosuchformat"},
		{"accum=kahan", "unknown accumulation kahan"},
		{"rounding=up", "unknown rounding up"},
		{"G/[:weight=posit(8,1)", "layer glob"},
		{":weight=posit(8,1)", "empty layer glob"},
	}
	for _, tt := range tests {
		p := &policy.Policy{}
		err := p.Apply(tt.setting)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Apply(%q) = %v, want an error containing %q", tt.setting, err, tt.want)
		}
	}
}

func TestPolicyPresets(t *testing.T) {
	const (
		p8  = "posit(8,2)"
		q8  = "posit(8,1)"
		p16 = "posit(16,1)"
		p6  = "posit(6,1)"
	)
	dyn10 := policy.LossScale{Scale: 1024, Dynamic: true}
	// f lists weight, act, out, err, wgrad and accum_format.
	tests := []struct {
		name  string
		f     [6]string
		acc   quant.Accumulation
		scale policy.LossScale
	}{
		{"fp32", [6]string{}, quant.AccumFP32, policy.LossScale{}},
		{"posit8", [6]string{p8, p8, p8, p8, p8}, quant.AccumFP32, policy.LossScale{}},
		{"posit8+", [6]string{"posit(8,1,scale=4)", "posit(8,1,scale=1)", "posit(8,1,scale=1)", q8, q8}, quant.AccumFP32, dyn10},
		{"posit8+-quire", [6]string{"posit(8,1,scale=4)", "posit(8,1,scale=1)", "posit(8,1,scale=1)", q8, q8}, quant.AccumQuire, dyn10},
		{"posit8+-per-op", [6]string{"posit(8,1,scale=4)", "posit(8,1,scale=1)", "posit(8,1,scale=1)", q8, q8}, quant.AccumPerOp, dyn10},
		{"posit8-quire", [6]string{p8, p8, p8, p8, p8}, quant.AccumQuire, policy.LossScale{}},
		{"posit6-deploy", [6]string{p6, p6, p16, p16, p16}, quant.AccumFP32, policy.LossScale{}},
		{"posit6-deploy-quire", [6]string{p6, p6, p16, p16, p16}, quant.AccumQuire, policy.LossScale{}},
		{"fp16", [6]string{"fp16", "fp16", "fp16", "fp16", "fp16"}, quant.AccumFP32, policy.LossScale{Scale: 65536, Dynamic: true}},
		{"fp8-ibm", [6]string{"fp8-ibm-fwd", "fp8-ibm-fwd", "float(6,9)", "fp8-ibm-bwd", "fp8-ibm-bwd", "float(6,9)"}, quant.AccumFP32, dyn10},
		{"fp8-ibm-per-op", [6]string{"fp8-ibm-fwd", "fp8-ibm-fwd", "float(6,9)", "fp8-ibm-bwd", "fp8-ibm-bwd", "float(6,9)"}, quant.AccumPerOp, dyn10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := policy.Parse(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			want := lf(tt.f[0], tt.f[1], tt.f[2], tt.f[3], tt.f[4], tt.acc, tt.f[5], quant.Nearest)
			if got := p.For("any/layer"); !reflect.DeepEqual(got, want) {
				t.Errorf("For =\n%+v\nwant\n%+v", got, want)
			}
			if p.LossScale != tt.scale {
				t.Errorf("LossScale = %+v, want %+v", p.LossScale, tt.scale)
			}
			if p.Name != tt.name {
				t.Errorf("Name = %q, want %q", p.Name, tt.name)
			}
		})
	}
	// Every documented preset is reachable and round-trips.
	names, docs := policy.Presets()
	for i, n := range names {
		if docs[i] == "" {
			t.Errorf("preset %s has no description", n)
		}
		for _, suffix := range []string{"", "-quire", "-per-op"} {
			p, err := policy.Preset(n + suffix)
			if err != nil {
				if strings.Contains(err.Error(), "not implemented") || strings.Contains(err.Error(), "unknown format") {
					continue // float formats not in Parse yet: covered by the skips above
				}
				t.Errorf("Preset(%q): %v", n+suffix, err)
				continue
			}
			checkRoundTrip(t, p)
		}
	}
}

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct {
		arg, want string
	}{
		{"posit9", `unknown preset "posit9"`},
		{"posit8+-kahan", `unknown preset "posit8+-kahan"`},
		{"testdata/no-such-file.toml", "no such file"},
		{"testdata/policy-unknown-key.toml", `unknown key "layer.wieght"`},
	}
	for _, tt := range tests {
		_, err := policy.Parse(tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParsePolicy(%q) = %v, want an error containing %q", tt.arg, err, tt.want)
		}
	}
}

func TestReadPolicyErrors(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"unknown top-level key", `presett = "posit8"`, `unknown key "presett"`},
		{"unknown default key", "[default]\nwieght = \"posit(8,1)\"", `unknown key "default.wieght"`},
		{"unknown loss key", "[loss_scale]\nscael = 2.0", `unknown key "loss_scale.scael"`},
		{"layer without match", "[[layer]]\nweight = \"posit(8,1)\"", "has no match key"},
		{"match in default", "[default]\nmatch = \"G/*\"", "takes no match key"},
		{"bad format", "[[layer]]\nmatch = \"G/*\"\nweight = \"posit(8,)\"", `[[layer]] 1 (match "G/*")`},
		{"bad glob", "[[layer]]\nmatch = \"G/[\"\nweight = \"posit(8,1)\"", "layer glob"},
		{"bad preset", `preset = "posit9"`, `unknown preset "posit9"`},
		{"negative loss scale", "[loss_scale]\nscale = -2.0", "loss_scale.scale"},
		{"dynamic from zero", "[loss_scale]\nscale = 0.0\ndynamic = true", "loss_scale.scale"},
		{"wrong type", "[default]\nweight = 8", "weight"},
		{"syntax", "[default\n", "policy file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := policy.Read(strings.NewReader(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestReadPolicyFile(t *testing.T) {
	p, err := policy.Parse("testdata/policy-posit8plus-custom.toml")
	if err != nil {
		t.Fatal(err)
	}
	const q8 = "posit(8,1)"
	tests := []struct {
		layer string
		want  nn.LayerFormats
	}{
		{"G/conv1", lf("posit(8,1,scale=4)", "posit(8,1,scale=1)", "posit(8,1,scale=1)", q8, q8, quant.AccumQuire, "", quant.Nearest)},
		{"G/out", lf("posit(16,1,scale=4)", "posit(16,1)", "posit(16,1)", "posit(16,1)", "posit(16,1)", quant.AccumQuire, "", quant.Nearest)},
		{"D/fc", lf("posit(8,1,scale=4)", "posit(8,1,scale=1)", "posit(8,1,scale=1)", q8, q8, quant.AccumQuire, "", quant.Stochastic)},
	}
	for _, tt := range tests {
		if got := p.For(tt.layer); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("For(%q) =\n%+v\nwant\n%+v", tt.layer, got, tt.want)
		}
	}
	if want := (policy.LossScale{Scale: 512}); p.LossScale != want {
		t.Errorf("LossScale = %+v, want %+v", p.LossScale, want)
	}
	if p.Name != "posit8+ G/out16" {
		t.Errorf("Name = %q", p.Name)
	}
	checkRoundTrip(t, p)
}

// checkRoundTrip checks that p's TOML reads back into a policy with the
// same text and the same formats for a set of layer names.
func checkRoundTrip(t *testing.T, p *policy.Policy) {
	t.Helper()
	var b bytes.Buffer
	if err := p.WriteTOML(&b); err != nil {
		t.Fatal(err)
	}
	q, err := policy.Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("%s: reading back:\n%s\n%v", p.Name, b.String(), err)
	}
	if q.String() != b.String() {
		t.Errorf("%s: round trip changed the TOML:\n%s\nto\n%s", p.Name, b.String(), q.String())
	}
	if q.Name != p.Name || q.LossScale != p.LossScale {
		t.Errorf("%s: round trip: name %q loss %+v, want %q %+v", p.Name, q.Name, q.LossScale, p.Name, p.LossScale)
	}
	for _, l := range []string{"G/conv1", "G/out", "D/fc", "x"} {
		if a, b := p.For(l), q.For(l); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: round trip: For(%q) = %+v, want %+v", p.Name, l, b, a)
		}
	}
}

func TestPolicyRoundTripOverrides(t *testing.T) {
	p, err := policy.Parse("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"G/*:all=none", "G/*:weight=posit(8,0,scale=-3)", `D/"odd\name*:accum=per-op`} {
		if err := p.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	checkRoundTrip(t, p)
	if err := os.WriteFile(t.TempDir()+"/p.toml", []byte(p.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ExampleParse() {
	p, err := policy.Parse("posit8+")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Keep the generator's output layer in 16-bit posits.
	if err := p.Apply("G/out:all=posit(16,1)"); err != nil {
		fmt.Println(err)
		return
	}
	for _, layer := range []string{"G/conv1", "G/out"} {
		f := p.For(layer)
		fmt.Println(layer, f.Weight, f.Act, f.Err, f.Accum)
	}
	fmt.Println("loss scale", p.LossScale.Scale, "dynamic", p.LossScale.Dynamic)
	// Output:
	// G/conv1 posit(8,1,scale=4) posit(8,1,scale=1) posit(8,1) fp32
	// G/out posit(16,1) posit(16,1) posit(16,1) fp32
	// loss scale 1024 dynamic true
}

func ExamplePolicy_WriteTOML() {
	p, _ := policy.Parse("posit6-deploy-quire")
	_ = p.Apply("G/out:weight=posit(16,1)")
	_ = p.WriteTOML(os.Stdout)
	// Output:
	// # positgan quantization policy
	// name = "posit6-deploy-quire"
	//
	// [default]
	//   weight = "posit(6,1)"
	//   act = "posit(6,1)"
	//   out = "posit(16,1)"
	//   err = "posit(16,1)"
	//   wgrad = "posit(16,1)"
	//   accum = "quire"
	//   accum_format = "none"
	//   rounding = "nearest"
	//
	// [[layer]]
	//   match = "G/out"
	//   weight = "posit(16,1)"
}

func TestPolicyTanh(t *testing.T) {
	p, err := policy.Parse("posit8+t")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := policy.Parse("posit8+")
	if p.Tanh != "bitwise-corrected:posit(16,0)" || p.For("G/fc1") != base.For("G/fc1") {
		t.Errorf("posit8+t: tanh %q and formats %+v; want the corrected bitwise tanh over posit8+'s formats", p.Tanh, p.For("G/fc1"))
	}
	back, err := policy.Read(strings.NewReader(p.String()))
	if err != nil || back.Tanh != p.Tanh || back.String() != p.String() {
		t.Errorf("TOML round trip: %v, tanh %q; want %q", err, back.Tanh, p.Tanh)
	}
	for _, tc := range []struct {
		setting string
		want    string // "" with ok: the exact tanh
		ok      bool
	}{
		{"tanh=pwl:3", "pwl:3", true},
		{"tanh=bitwise:posit(8,0)", "bitwise:posit(8,0)", true},
		{"tanh=exact", "", true},
		{"tanh=cubic", "", false},
		{"G/*:tanh=pwl:3", "", false},
	} {
		q := base.Clone()
		err := q.Apply(tc.setting)
		if (err == nil) != tc.ok || (tc.ok && q.Tanh != tc.want) {
			t.Errorf("Apply(%q): tanh %q, err %v; want %q, ok %v", tc.setting, q.Tanh, err, tc.want, tc.ok)
		}
	}
	if _, err := policy.Read(strings.NewReader(`tanh = "cubic"`)); err == nil {
		t.Error("policy file with tanh = cubic accepted")
	}
}

// A single format is a policy: that format for every role of every layer.
func TestParsePolicySingleFormat(t *testing.T) {
	p, err := policy.Parse("posit(8,1)")
	if err != nil {
		t.Fatal(err)
	}
	lf := p.For("G/fc1")
	for _, f := range []quant.Format{lf.Weight.Format, lf.Act.Format, lf.Out.Format, lf.Err.Format, lf.WGrad.Format} {
		if f == nil || f.String() != "posit(8,1)" {
			t.Errorf("role format %v, want posit(8,1)", f)
		}
	}
	if p.Name != "posit(8,1)" {
		t.Errorf("name %q", p.Name)
	}
	if _, err := policy.Parse("posit(8"); err == nil || !strings.Contains(err.Error(), "unknown preset") || !strings.Contains(err.Error(), "nor is it a format") {
		t.Errorf("bad name: %v", err)
	}
}

// A format that names a file (table:/abs/path) is a format, not a policy
// file, even though it holds a path separator.
func TestParsePolicyTableFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "values.txt")
	if err := os.WriteFile(path, []byte("-1\n-0.5\n0\n0.5\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse("table:" + path)
	if err != nil {
		t.Fatal(err)
	}
	if w := p.For("G/fc1").Weight.Format; w == nil || w.Round(0.3) != 0.5 {
		t.Errorf("weight format %v does not round 0.3 to 0.5", w)
	}
	missing := filepath.Join(t.TempDir(), "none.toml")
	if _, err := policy.Parse(missing); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing policy file: %v", err)
	}
}

// A policy file nested deeper than TOML's limit, as a checkpoint from
// elsewhere may hold, is an error before the decoder sees it (issue 29).
func TestReadNestingLimit(t *testing.T) {
	for name, text := range map[string]string{
		"inline tables": "x = " + strings.Repeat("{a = ", 10000) + "1" + strings.Repeat("}", 10000) + "\n",
		"header":        "[" + strings.Repeat("a.", 20000) + "a]\n",
		"arrays":        "x = " + strings.Repeat("[", 2<<20) + strings.Repeat("]", 2<<20) + "\n",
	} {
		if _, err := policy.Read(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "policy file") {
			t.Errorf("%s: Read = %v, want a policy file error", name, err)
		}
	}
}

// Names and files from elsewhere never make the policy code open a path:
// ParseName reads no policy file and no table:FILE, and neither does Read
// for the formats inside a file; a table given on the command line is
// named by its values, so what is written travels by value (issue 29).
func TestNoFilesFromFiles(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(table, []byte("-1\n0\n1\nnan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "p.toml")
	if err := os.WriteFile(file, []byte("preset = \"posit8\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"table:" + table, "table:/etc/passwd", file} {
		if _, err := policy.ParseName(s); err == nil {
			t.Errorf("ParseName(%s) opened a file", s)
		}
	}
	if _, err := policy.ParseName("posit8+"); err != nil {
		t.Errorf("ParseName(posit8+): %v", err)
	}
	_, err := policy.Read(strings.NewReader("[default]\nweight = \"table:/etc/passwd\"\n"))
	if err == nil || !strings.Contains(err.Error(), "names a file") || strings.Contains(err.Error(), "root:") {
		t.Errorf("Read of a file naming table:/etc/passwd: %v", err)
	}
	// From the command line the table is read, and written by value.
	p, err := policy.Parse("table:" + table)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.String(), "table:") || !strings.Contains(p.String(), "table(-1,0,1,nan)") {
		t.Errorf("policy of table:FILE named %q:\n%s", p.Name, p)
	}
	q, err := policy.Read(strings.NewReader(p.String()))
	if err != nil || q.For("G/fc1") != p.For("G/fc1") {
		t.Errorf("written policy reads back as %v, %v", q, err)
	}
}
