package formatinfo

import (
	"cmp"
	"io"
	"strings"

	"github.com/positgan/positgan/quant"
)

// A NameError is a format name that quant.Parse cannot read; Err is its
// error, and says the same.
type NameError struct{ Err error }

func (e *NameError) Error() string { return e.Err.Error() }
func (e *NameError) Unwrap() error { return e.Err }

// ParseFormats parses format names (quant.Parse of each, spaces trimmed);
// a name it cannot read is a *NameError.
func ParseFormats(names []string) ([]quant.Format, error) {
	fs := make([]quant.Format, len(names))
	for i, n := range names {
		f, err := quant.Parse(strings.TrimSpace(n))
		if err != nil {
			return nil, &NameError{err}
		}
		fs[i] = f
	}
	return fs, nil
}

// WritePromote writes, as "positgan format promote" prints it, the
// promotion of the named formats by p: if every name is a block format,
// that of the block formats (quant.Promoter.PromoteBlocks,
// WriteBlockPromotion); else that of the formats and a line per candidate
// (quant.Promoter.Explain, WritePromotion), written before an error, so
// that an ambiguous promotion shows its bounds. A name that is not a
// format is a *NameError.
func WritePromote(w io.Writer, p quant.Promoter, names []string) error {
	if bs, ok := blockFormats(names); ok {
		r, err := p.PromoteBlocks(bs...)
		if err != nil {
			return err
		}
		return WriteBlockPromotion(w, bs, r)
	}
	ops, err := ParseFormats(names)
	if err != nil {
		return err
	}
	pr, err := p.Explain(ops...)
	return cmp.Or(WritePromotion(w, pr), err)
}

// blockFormats parses names as block formats, if they all are.
func blockFormats(names []string) ([]quant.BlockFormat, bool) {
	bs := make([]quant.BlockFormat, len(names))
	for i, a := range names {
		b, err := quant.ParseBlock(a)
		if err != nil {
			return nil, false
		}
		bs[i] = b
	}
	return bs, true
}
