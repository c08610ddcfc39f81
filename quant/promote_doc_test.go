package quant_test

import (
	"os"
	"strings"
	"testing"

	"github.com/positgan/positgan/quant"
)

// docPresets are the rows and columns of the promotion table in
// docs/formats.md.
var docPresets = []string{"posit(8,1)", "posit(8,2)", "posit(16,1)", "posit(32,2)", "fp8-e4m3", "fp8-e5m2", "fp8-ibm-fwd",
	"fp16", "bf16", "fp32", "fixed(8,4)", "fixed(16,8)"}

// promotionTable returns the Markdown table of Promote among docPresets:
// the result, "a \| b" for several least upper bounds, float64 where no
// format holds both.
func promotionTable() string {
	var b strings.Builder
	b.WriteString("| ∨ |")
	for _, n := range docPresets {
		b.WriteString(" " + n + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(docPresets)) + "\n")
	for _, an := range docPresets {
		b.WriteString("| **" + an + "** |")
		for _, bn := range docPresets {
			f, err := builtin.Promote(quant.MustParse(an), quant.MustParse(bn))
			cell := errKey(f, err)
			cell = strings.TrimPrefix(cell, "ambiguous ")
			cell = strings.ReplaceAll(cell, " | ", " \\| ")
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestPromotionTableInDocs checks that docs/formats.md shows the table
// Promote gives; on a mismatch it prints the table to paste there.
func TestPromotionTableInDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := promotionTable(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/formats.md lacks the promotion table; it is now:\n%s", want)
	}
}
