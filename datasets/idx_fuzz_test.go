package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// idxFile lays out an IDX file: magic, dimensions, data.
func idxFile(magic uint32, dims []uint32, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	binary.Write(&b, binary.BigEndian, dims)
	b.Write(data)
	return b.Bytes()
}

func gzipped(b []byte) []byte {
	var out bytes.Buffer
	z := gzip.NewWriter(&out)
	z.Write(b)
	z.Close()
	return out.Bytes()
}

// FuzzReadIDX: any file gives IDX data or an error, never a panic; data
// read has the length its dimensions say, and the reader allocates no
// more than the file could hold.
func FuzzReadIDX(f *testing.F) {
	images := idxFile(idxImagesMagic, []uint32{2, 2, 3}, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	labels := idxFile(idxLabelsMagic, []uint32{2}, []byte{1, 0})
	f.Add(images)
	f.Add(labels)
	f.Add(gzipped(images))
	f.Add(gzipped(labels))
	f.Add(idxFile(idxImagesMagic, []uint32{1 << 31, 1 << 31, 1 << 31}, nil))
	f.Add(gzipped(idxFile(idxImagesMagic, []uint32{60000, 28, 28}, make([]byte, 100))))
	dir := f.TempDir()
	path := filepath.Join(dir, "f.idx")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, magic := range []uint32{idxImagesMagic, idxLabelsMagic} {
			dims, data, err := readIDX(path, magic)
			if err != nil {
				continue
			}
			n := 1
			for _, d := range dims {
				n *= d
			}
			if n != len(data) {
				t.Fatalf("dimensions %v with %d bytes", dims, len(data))
			}
			if len(data) > maxDeflateRatio*len(b) {
				t.Fatalf("%d bytes of data from a file of %d", len(data), len(b))
			}
		}
	})
}
