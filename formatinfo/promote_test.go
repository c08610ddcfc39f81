package formatinfo_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/positgan/positgan/formatinfo"
	"github.com/positgan/positgan/quant"
)

// WritePromote promotes block formats by their elements and formats with
// a line per candidate, the candidates also before an error; a name that
// is not a format is a *NameError.
func TestWritePromote(t *testing.T) {
	var b bytes.Buffer
	if err := formatinfo.WritePromote(&b, quant.Promoter{}, []string{"fp8-e5m2", "fp4-e2m1", "fp16"}); err != nil ||
		!strings.HasPrefix(b.String(), "promote(fp8-e5m2, fp4-e2m1, fp16) = fp16\n") || strings.Count(b.String(), "\n") < 2 {
		t.Errorf("formats: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := formatinfo.WritePromote(&b, quant.Promoter{}, []string{"mxfp4-e2m1", "mxfp6-e2m3"}); err != nil ||
		!strings.HasPrefix(b.String(), "promote(mxfp4-e2m1, mxfp6-e2m3) = mxfp6-e2m3 (its elements") {
		t.Errorf("block formats: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := formatinfo.WritePromote(&b, quant.Promoter{}, []string{"posit(8,1)", "fp8-e4m3"}); err == nil ||
		!strings.HasPrefix(b.String(), "promote(posit(8,1), fp8-e4m3): no result\n") {
		t.Errorf("two bounds: %v\n%s", err, b.String())
	}
	b.Reset()
	var ne *formatinfo.NameError
	if err := formatinfo.WritePromote(&b, quant.Promoter{}, []string{"fp16", "nonsense"}); !errors.As(err, &ne) || b.Len() != 0 {
		t.Errorf("not a format: %v, wrote %q", err, b.String())
	}
	if fs, err := formatinfo.ParseFormats([]string{" fp16", "bf16 "}); err != nil || len(fs) != 2 || fs[1].String() != "bf16" {
		t.Errorf("ParseFormats: %v, %v", fs, err)
	}
}
