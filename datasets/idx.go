package datasets

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/positgan/positgan/internal/regfile"
)

// IDX magic numbers: two zero bytes, the element type (0x08: unsigned
// byte) and the number of dimensions.
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
)

// maxDeflateRatio bounds how many times larger than its compressed size
// data can be once inflated (deflate's limit is about 1032).
const maxDeflateRatio = 1040

// maxIDXBytes bounds the data an IDX header may announce, so that a corrupt
// header gives an error rather than a huge allocation.
const maxIDXBytes = 1 << 36

// readIDX reads the IDX file at path, gzipped or not (told by its first
// bytes, not its name), whose magic must be magic. It returns the
// dimensions and the data, whose length is their product.
func readIDX(path string, magic uint32) (dims []int, data []byte, err error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, nil, &FileError{Path: path, Err: errors.New("is a directory, want an IDX file")}
	}
	f, fi, err := regfile.Open(path) // a named pipe is refused: it would block
	if err != nil {
		return nil, nil, fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var r io.Reader = br
	gzipped := false
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &FileError{Path: path, Err: err}
		}
		r, gzipped = zr, true
	}

	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, nil, readErr(path, err, "IDX header")
	}
	if got := binary.BigEndian.Uint32(hdr[:]); got != magic {
		return nil, nil, formatErr(path, "magic number 0x%08x%s, want 0x%08x%s",
			got, magicName(got), magic, magicName(magic))
	}
	nd := int(magic & 0xff)
	buf := make([]byte, 4*nd)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, nil, readErr(path, err, "IDX header")
	}
	dims = make([]int, nd)
	total := int64(1)
	for i := range dims {
		dims[i] = int(binary.BigEndian.Uint32(buf[4*i:]))
		// Checked before multiplying: the product of four 32-bit
		// dimensions can wrap around int64 to a small or negative size.
		if d := int64(dims[i]); d != 0 && total > maxIDXBytes/d {
			return nil, nil, formatErr(path, "IDX header announces dimensions %v, more than %d bytes", dims[:i+1], int64(maxIDXBytes))
		}
		total *= int64(dims[i])
		if total > maxIDXBytes {
			return nil, nil, formatErr(path, "IDX header announces dimensions %v, more than %d bytes", dims[:i+1], int64(maxIDXBytes))
		}
	}
	hdrLen := int64(4 + 4*nd)
	switch size := fi.Size(); {
	case !gzipped && size != hdrLen+total:
		return nil, nil, sizeErr(path, dims, hdrLen+total, size, "file")
	case gzipped && total > maxDeflateRatio*size:
		// Checked before allocating, so a corrupt header cannot ask for
		// more memory than the file could hold.
		return nil, nil, formatErr(path, "truncated: IDX header announces dimensions %v, %d bytes with the header; a gzip file of %d bytes holds at most %d",
			dims, hdrLen+total, size, maxDeflateRatio*size)
	}

	data = make([]byte, total)
	if n, err := io.ReadFull(r, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, nil, sizeErr(path, dims, hdrLen+total, hdrLen+int64(n), "decompressed data")
		}
		return nil, nil, readErr(path, err, "IDX data")
	}
	// Read to the end: a gzip stream checks its CRC there, and data past
	// what the header describes is an error.
	var extra [512]byte
	for {
		n, err := r.Read(extra[:])
		if n > 0 {
			return nil, nil, formatErr(path, "data continues past the %d bytes the IDX header describes (dimensions %v)", hdrLen+total, dims)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, readErr(path, err, "IDX data")
		}
	}
	return dims, data, nil
}

func magicName(m uint32) string {
	switch m {
	case idxImagesMagic:
		return " (IDX images)"
	case idxLabelsMagic:
		return " (IDX labels)"
	}
	return ""
}

func sizeErr(path string, dims []int, want, got int64, what string) error {
	if got < want {
		return formatErr(path, "truncated: IDX header announces dimensions %v, %d bytes with the header; %s has %d", dims, want, what, got)
	}
	return formatErr(path, "IDX header announces dimensions %v, %d bytes with the header; %s has %d", dims, want, what, got)
}

// readErr wraps an error met while reading what; an early end of data is
// reported as truncation.
func readErr(path string, err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return formatErr(path, "truncated: file ends inside the %s", what)
	}
	return &FileError{Path: path, Err: err}
}

// LoadIDX reads an IDX images file and its IDX labels file, each gzipped or
// not. The images may have any size; each becomes a one-channel sample. The
// number of classes is one more than the largest label.
func LoadIDX(images, labels string) (*Set, error) {
	return loadIDX(images, labels, images, nil)
}

// loadIDX is LoadIDX with a name for the set and, if classes is not nil,
// the class names, which fix the number of classes.
func loadIDX(images, labels, name string, classes []string) (*Set, error) {
	dims, pix, err := readIDX(images, idxImagesMagic)
	if err != nil {
		return nil, err
	}
	n, h, w := dims[0], dims[1], dims[2]
	if n > 0 && (h == 0 || w == 0) {
		return nil, formatErr(images, "images of size %dx%d", h, w)
	}
	ldims, lab, err := readIDX(labels, idxLabelsMagic)
	if err != nil {
		return nil, err
	}
	if ldims[0] != n {
		return nil, &FileError{Path: labels, Err: FormatError(fmt.Sprintf("%d labels for the %d images of %s", ldims[0], n, images))}
	}
	ls := make([]int, n)
	for i, l := range lab {
		if classes != nil && int(l) >= len(classes) {
			return nil, formatErr(labels, "label %d of sample %d out of range [0, %d)", l, i, len(classes))
		}
		ls[i] = int(l)
	}
	return NewSet(name, Shape{C: 1, H: h, W: w}, pix, ls, classes)
}
