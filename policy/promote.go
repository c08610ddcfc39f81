package policy

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// Type promotion in a policy (docs/policies.md, "prefer"; docs/formats.md,
// "Type promotion"). Where two tensors of different formats meet and the
// policy names no format for the result (a residual add's Other left
// unnamed, not even "none"), the result takes their promotion,
// quant.Promote. When the known formats (the built-in ones, the policy's
// and its prefer list) hold several minimal upper bounds, the first
// format of the prefer list that is one of them settles it; without one,
// building the model is an error naming them.
//
// A checkpoint records, beside the policy, the formats its residual sums
// were promoted to (WithPromoted, WriteRecord), as a [promoted] table
// that Read reads back (Promoted) and String leaves out: it is what the
// policy gave, not part of the policy.

// promoteState is the promotion part of a Policy.
type promoteState struct {
	prefer   []quant.Format
	promoter *quant.Promoter         // nil without a prefer list (see updatePromoter)
	promoted map[string]quant.Format // the record of a checkpoint, or nil
}

// Prefer returns the policy's prefer list.
func (p *Policy) Prefer() []quant.Format { return slices.Clone(p.prefer) }

// setPrefer sets the prefer list from a setting's value: element formats
// separated by commas ("posit(16,1),bf16"), or "" or none for no list.
func (p *Policy) setPrefer(glob, value string) error {
	if glob != "" {
		return Error(fmt.Sprintf("prefer=%s: the prefer list is the whole policy's and takes no layer glob", value))
	}
	var names []string
	if v := strings.TrimSpace(value); v != "" && v != noFormat {
		names = quant.SplitNames(v)
	}
	return p.setPreferNames(names)
}

// setPreferNames sets the prefer list to the formats named.
func (p *Policy) setPreferNames(names []string) error {
	var fs []quant.Format
	for _, n := range names {
		n = strings.TrimSpace(n)
		if isBlockName(n) {
			return Error(fmt.Sprintf("prefer: %s is block-scaled: block formats promote by their element formats, so prefer those", n))
		}
		f, err := quant.ParseSelfContained(n)
		if err != nil {
			return Error(fmt.Sprintf("prefer: %v", err))
		}
		if slices.ContainsFunc(fs, func(g quant.Format) bool { return g.String() == f.String() }) {
			return Error(fmt.Sprintf("prefer: %s is listed twice", f))
		}
		fs = append(fs, f)
	}
	p.prefer = fs
	p.updatePromoter()
	return nil
}

// updatePromoter rebuilds the promoter For hands to the layers: nil
// without a prefer list, so that the formats of the policies that have
// none are as before (the built-in candidates), else the prefer list with
// the policy's formats among the known ones.
func (p *Policy) updatePromoter() {
	if len(p.prefer) == 0 {
		p.promoter = nil
		return
	}
	p.promoter = &quant.Promoter{Prefer: slices.Clone(p.prefer), Known: p.formats(), BuiltinOnly: true}
}

// formats returns the element formats the policy names, in the order
// of its fields and overrides, once each.
func (p *Policy) formats() []quant.Format {
	var fs []quant.Format
	seen := map[string]bool{}
	add := func(lf *nn.LayerFormats) {
		for k := range numKeys {
			if f := formatField(lf, k); f != nil && *f != nil && !seen[(*f).String()] {
				seen[(*f).String()] = true
				fs = append(fs, *f)
			}
		}
	}
	add(&p.Default)
	for i := range p.overrides {
		add(&p.overrides[i].lf)
	}
	return fs
}

// Promoter returns how formats promote under the policy: among the
// built-in formats and the operands, and with a prefer list also the
// policy's formats and that list, which settles a choice among several
// least upper bounds.
func (p *Policy) Promoter() quant.Promoter {
	if p == nil || p.promoter == nil {
		return quant.Promoter{BuiltinOnly: true}
	}
	return *p.promoter
}

// Promoted returns the record of the formats training promoted the
// residual sums to, by the name of their Other role ("G_AB/res1/add"), as
// a checkpoint's policy holds it; nil for a policy without one.
func (p *Policy) Promoted() map[string]quant.Format {
	if p == nil {
		return nil
	}
	return maps.Clone(p.promoted)
}

// WithPromoted returns a copy of p recording the promoted formats m (see
// nn.Promotions), which WriteRecord writes; an empty m, none.
func (p *Policy) WithPromoted(m map[string]quant.Format) *Policy {
	q := p.Clone()
	q.promoted = nil
	if len(m) > 0 {
		q.promoted = maps.Clone(m)
	}
	return q
}

// WriteRecord writes p as WriteTOML does, followed by the [promoted]
// table of its record: what a checkpoint stores.
func (p *Policy) WriteRecord(w io.Writer) error {
	if err := p.WriteTOML(w); err != nil || len(p.promoted) == 0 {
		return err
	}
	rec := struct {
		Promoted map[string]string `toml:"promoted"`
	}{map[string]string{}}
	for k, f := range p.promoted {
		rec.Promoted[k] = f.String()
	}
	if _, err := io.WriteString(w, "\n# the formats training promoted the residual sums this policy leaves unnamed to\n"); err != nil {
		return err
	}
	return toml.NewEncoder(w).Encode(rec)
}

// Record returns p as WriteRecord writes it.
func (p *Policy) Record() string {
	var b strings.Builder
	if err := p.WriteRecord(&b); err != nil {
		return "policy: " + err.Error()
	}
	return b.String()
}

// readPromote sets the prefer list and the record of a policy file.
func (p *Policy) readPromote(t *tomlPolicy) error {
	if t.Prefer != nil {
		if err := p.setPreferNames(t.Prefer); err != nil {
			return err
		}
	}
	if len(t.Promoted) == 0 {
		return nil
	}
	p.promoted = make(map[string]quant.Format, len(t.Promoted))
	for k, v := range t.Promoted {
		if k == "" || !utf8.ValidString(k) {
			return Error(fmt.Sprintf("[promoted]: layer name %q: want a non-empty UTF-8 name", k))
		}
		f, err := quant.ParseSelfContained(v)
		if err != nil {
			return Error(fmt.Sprintf("[promoted] %q: %v", k, err))
		}
		p.promoted[k] = f
	}
	return nil
}

// writePromote sets the prefer list of a policy file.
func (p *Policy) writePromote(t *tomlPolicy) {
	for _, f := range p.prefer {
		t.Prefer = append(t.Prefer, f.String())
	}
}
