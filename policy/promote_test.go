package policy_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
)

// A residual add's Other left unnamed and one named none read as float32
// alike, but For tells them apart (OtherNone), and so does the file.
func TestOtherNamedNone(t *testing.T) {
	p := &policy.Policy{}
	for _, s := range []string{"all=posit(8,1)", "G/res1/add:other=none", "G/res2/*:other=fp16", "G/res2/add:other=none"} {
		if err := p.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		layer string
		none  bool
		other string
	}{
		{"G/res0/add", false, "none"},
		{"G/res1/add", true, "none"},
		{"G/res2/add", true, "none"},   // the later override wins
		{"G/res2/norm", false, "fp16"}, // a format is named
	} {
		lf := p.For(tt.layer)
		if lf.OtherNone != tt.none || lf.Other.String() != tt.other {
			t.Errorf("For(%s): Other %v, OtherNone %v; want %s, %v", tt.layer, lf.Other, lf.OtherNone, tt.other, tt.none)
		}
	}
	q, err := policy.Read(strings.NewReader(p.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"G/res0/add", "G/res1/add", "G/res2/add", "G/res2/norm"} {
		if q.For(l) != p.For(l) {
			t.Errorf("%s read back as %+v, want %+v", l, q.For(l), p.For(l))
		}
	}
	// In [default]: other = "none" is written only when named.
	if err := p.Apply("other=none"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.String(), "[default]") || !p.For("G/res0/add").OtherNone {
		t.Errorf("default other=none: For gives OtherNone %v", p.For("G/res0/add").OtherNone)
	}
	q, err = policy.Read(strings.NewReader(p.String()))
	if err != nil || !q.For("G/res0/add").OtherNone || q.String() != p.String() {
		t.Errorf("default other=none does not read back: %v\n%s", err, p.String())
	}
	// The presets that name no Other write no other key, as before.
	for _, name := range []string{"posit8+", "fp16", "mxfp8"} {
		pr, err := policy.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(pr.String(), "other") || pr.For("G/add").OtherNone {
			t.Errorf("%s names other:\n%s", name, pr.String())
		}
	}
}

func TestPrefer(t *testing.T) {
	p := &policy.Policy{}
	if err := p.Apply("prefer=posit(16,1), bf16"); err != nil {
		t.Fatal(err)
	}
	names := func(fs []quant.Format) []string {
		var s []string
		for _, f := range fs {
			s = append(s, f.String())
		}
		return s
	}
	if got := names(p.Prefer()); !slices.Equal(got, []string{"posit(16,1)", "bf16"}) {
		t.Errorf("Prefer = %v", got)
	}
	if pr := p.For("G/add").Promoter; pr == nil || !slices.Equal(names(pr.Prefer), []string{"posit(16,1)", "bf16"}) {
		t.Errorf("For gives promoter %+v", pr)
	}
	if !strings.Contains(p.String(), `prefer = ["posit(16,1)", "bf16"]`) {
		t.Errorf("String has no prefer list:\n%s", p.String())
	}
	q, err := policy.Read(strings.NewReader(p.String()))
	if err != nil || q.String() != p.String() || !slices.Equal(names(q.Prefer()), names(p.Prefer())) {
		t.Errorf("prefer does not read back: %v", err)
	}
	// The promoter settles posit(8,1) ∨ fp8-e4m3, whose least upper bounds
	// are several, by the first preferred one among them.
	a, b := quant.MustParse("posit(8,1)"), quant.FP8E4M3
	_, err = quant.Promoter{BuiltinOnly: true}.Promote(a, b)
	amb, ok := err.(*quant.AmbiguousError)
	if !ok {
		t.Fatalf("posit(8,1) ∨ fp8-e4m3: %v, want several bounds", err)
	}
	last := amb.Bounds[len(amb.Bounds)-1]
	if err := p.Apply("prefer=fp32," + last.String()); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Promoter().Promote(a, b); got != last || err != nil {
		t.Errorf("preferring fp32, %v: %v, %v", last, got, err)
	}
	// The policy's formats are known to its promoter.
	if err := p.Apply("G/*:act=posit(10,1)"); err != nil {
		t.Fatal(err)
	}
	if pr := p.Promoter(); !slices.Contains(names(pr.Known), "posit(10,1)") {
		t.Errorf("Known = %v, want the policy's posit(10,1)", names(pr.Known))
	}
	// none clears the list; without one, For gives no promoter.
	if err := p.Apply("prefer=none"); err != nil || p.Prefer() != nil || p.For("x").Promoter != nil || strings.Contains(p.String(), "prefer") {
		t.Errorf("prefer=none: %v, %v", err, p.Prefer())
	}
	for _, bad := range []struct{ setting, want string }{
		{"G/*:prefer=fp16", "takes no layer glob"},
		{"prefer=fp16,nosuch", "nosuch"},
		{"prefer=fp16,fp16", "listed twice"},
		{"prefer=mxfp8-e4m3", "block-scaled"},
		{"prefer=table:/etc/passwd", "table"},
	} {
		if err := (&policy.Policy{}).Apply(bad.setting); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want an error with %q", bad.setting, err, bad.want)
		}
	}
	if _, err := policy.Read(strings.NewReader(`prefer = ["fp16", "nosuch"]`)); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("a file's bad prefer: %v", err)
	}
}

// A checkpoint's record of promoted formats reads back, and is no part
// of the policy's String.
func TestPromotedRecord(t *testing.T) {
	p, err := policy.Preset("posit8+")
	if err != nil {
		t.Fatal(err)
	}
	if p.Record() != p.String() || p.WithPromoted(nil).Record() != p.String() {
		t.Error("without promotions the record is not the policy")
	}
	m := map[string]quant.Format{"G_AB/res1/add": quant.FP16, "G/add": quant.MustParse("posit(16,1)")}
	q := p.WithPromoted(m)
	if p.Promoted() != nil || q.String() != p.String() {
		t.Error("WithPromoted changed the policy")
	}
	rec := q.Record()
	if !strings.HasPrefix(rec, p.String()) || !strings.Contains(rec, "[promoted]") || !strings.Contains(rec, `"G_AB/res1/add" = "fp16"`) {
		t.Errorf("record:\n%s", rec)
	}
	r, err := policy.Read(strings.NewReader(rec))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(r.Promoted(), m) || r.String() != p.String() || r.Record() != rec {
		t.Errorf("record reads back as %v:\n%s", r.Promoted(), r.Record())
	}
	for _, bad := range []string{"[promoted]\n\"G/add\" = \"nosuch\"\n", "[promoted]\n\"\" = \"fp16\"\n", "[promoted]\n\"G/add\" = \"table:/etc/passwd\"\n"} {
		if _, err := policy.Read(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read without error", bad)
		}
	}
}

// FuzzReadRecord: any file gives a policy or an error; a policy read
// round-trips through Record, prefer list and record included.
func FuzzReadRecord(f *testing.F) {
	f.Add("prefer = [\"posit(16,1)\", \"bf16\"]\n[default]\nother = \"none\"\n[promoted]\n\"G/add\" = \"fp16\"\n")
	f.Add("[promoted]\n\"a\\u0000b\" = \"posit(8,1,scale=3)\"\n")
	f.Add("prefer = []\n[[layer]]\nmatch = \"G/*\"\nother = \"none\"\n")
	f.Fuzz(func(t *testing.T, file string) {
		p, err := policy.Read(strings.NewReader(file))
		if err != nil {
			return
		}
		rec := p.Record()
		q, err := policy.Read(strings.NewReader(rec))
		if err != nil {
			t.Fatalf("Record does not read back: %v\n%s", err, rec)
		}
		if q.Record() != rec {
			t.Fatalf("Record does not round-trip:\n%s\nread back as\n%s", rec, q.Record())
		}
	})
}
