package eval

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// npyBytes returns an NPY v1 array: the header dictionary dict (padded
// and ended by a newline unless raw) followed by data.
func npyBytes(dict string, raw bool, data []byte) []byte {
	if !raw {
		dict += strings.Repeat(" ", (64-(10+len(dict)+1)%64)%64) + "\n"
	}
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	b.Write(data)
	return b.Bytes()
}

// npzBytes zips members (name → contents), deflated.
func npzBytes(t testing.TB, members ...[2][]byte) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, m := range members {
		w, err := z.Create(string(m[0]))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m[1])
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func f64Bytes(xs ...float64) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, xs)
	return b.Bytes()
}

// validSigma is a (2, 2) identity member.
var validSigma = [2][]byte{[]byte("sigma.npy"), npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", false, f64Bytes(1, 0, 0, 1))}

// TestDecodeStatsHostile checks the crafted files of issue 15: each gives
// an error (not a panic, not a huge allocation) naming the problem.
func TestDecodeStatsHostile(t *testing.T) {
	mu := func(dict string, raw bool, data []byte) []byte {
		return npzBytes(t, [2][]byte{[]byte("mu.npy"), npyBytes(dict, raw, data)}, validSigma)
	}
	two := f64Bytes(1, 2)
	hugeHeader := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", false, two)
	hugeHeader[6] = 2 // version 2: 4-byte header length
	hugeHeader = append(hugeHeader[:8:8], append([]byte{0xff, 0xff, 0xff, 0xff}, hugeHeader[8:]...)...)
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"no newline", mu("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", true, two), "newline"},
		{"no closing brace", mu("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), ", false, two), "'}'"},
		{"4 GB header", npzBytes(t, [2][]byte{[]byte("mu.npy"), hugeHeader}, validSigma), "header length"},
		{"negative shape", mu("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }", false, two), "non-negative"},
		{"overflowing shape", mu("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483647, 2147483647, 2147483647), }", false, two), "needs more than"},
		{"1e9 elements", mu("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }", false, two), "needs more than"},
		{"data short", mu("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", false, two), "needs 24 data bytes, the array holds 16"},
		{"data long", mu("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", false, two), "needs 8 data bytes, the array holds 16"},
		{"unknown key", mu("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", false, two), "unknown key"},
		{"missing key", mu("{'descr': '<f8', 'shape': (2,), }", false, two), "fortran_order"},
		{"bad magic", npzBytes(t, [2][]byte{[]byte("mu.npy"), []byte("NUMPY-ish and more")}, validSigma), "bad magic"},
		{"empty member", npzBytes(t, [2][]byte{[]byte("mu.npy"), nil}, validSigma), "truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeStats(bytes.NewReader(tc.file), int64(len(tc.file)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error of several lines: %q", err)
			}
		})
	}
}

// TestDecodeStatsKeyOrder: numpy sorts the header's keys, but any order is
// a valid dictionary.
func TestDecodeStatsKeyOrder(t *testing.T) {
	f := npzBytes(t, [2][]byte{[]byte("mu.npy"), npyBytes(`{"shape": (2,), "fortran_order": False, "descr": "<f8"}`, false, f64Bytes(1, 2))}, validSigma)
	s, err := DecodeStats(bytes.NewReader(f), int64(len(f)))
	if err != nil {
		t.Fatal(err)
	}
	if s.Mu[0] != 1 || s.Mu[1] != 2 {
		t.Errorf("mu = %v", s.Mu)
	}
}

// TestDecodeStatsCRC: a flipped bit in a stored member is caught by its
// CRC-32 instead of changing the FID.
func TestDecodeStatsCRC(t *testing.T) {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, m := range [][2][]byte{{[]byte("mu.npy"), npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", false, f64Bytes(1, 2))}, validSigma} {
		w, err := z.CreateHeader(&zip.FileHeader{Name: string(m[0]), Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m[1])
	}
	z.Close()
	f := b.Bytes()
	if _, err := DecodeStats(bytes.NewReader(f), int64(len(f))); err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(f, f64Bytes(1, 2))
	f[i+7] ^= 0x01 // mu[0]'s exponent: 1 becomes another number
	_, err := DecodeStats(bytes.NewReader(f), int64(len(f)))
	if err == nil || !strings.Contains(err.Error(), "CRC-32") {
		t.Errorf("err = %v, want a CRC-32 mismatch", err)
	}
}

// TestDecodeStatsBoundedAllocation: a small file cannot make the reader
// allocate much more than the file inflates to.
func TestDecodeStatsBoundedAllocation(t *testing.T) {
	// A deflated member of 10 MB zeros claims to be a (1310720,) array
	// and is one: the reader may allocate about twice that, no more.
	d := 1 << 17
	f := npzBytes(t, [2][]byte{[]byte("mu.npy"), npyBytes(fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }", d*10), false, make([]byte, 80*d))})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := DecodeStats(bytes.NewReader(f), int64(len(f)))
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("no error for a file without sigma")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d MB reading a %d-byte file", got>>20, len(f))
	}
}
