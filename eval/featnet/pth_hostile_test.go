package featnet

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/positgan/positgan/ckpt"
)

// The hostile .pth files below are built in the test: hand-assembled
// pickles (pk) in hand-assembled archives (makeZip, makeLegacy).

// pk assembles a pickle.
type pk struct{ bytes.Buffer }

func (p *pk) op(b ...byte) *pk { p.Write(b); return p }

// str writes a BINUNICODE.
func (p *pk) str(s string) *pk {
	p.WriteByte('X')
	binary.Write(&p.Buffer, binary.LittleEndian, uint32(len(s)))
	p.WriteString(s)
	return p
}

// int writes an int as BININT or, outside int32, an 8-byte LONG1.
func (p *pk) int(n int64) *pk {
	if int64(int32(n)) == n {
		p.WriteByte('J')
		binary.Write(&p.Buffer, binary.LittleEndian, int32(n))
		return p
	}
	p.op(0x8a, 8)
	binary.Write(&p.Buffer, binary.LittleEndian, n)
	return p
}

func (p *pk) global(module, name string) *pk {
	p.WriteByte('c')
	p.WriteString(module + "\n" + name + "\n")
	return p
}

// ints writes a tuple of ints.
func (p *pk) ints(xs []int64) *pk {
	p.op('(')
	for _, x := range xs {
		p.int(x)
	}
	return p.op('t')
}

// pthT describes one tensor of a hand-made state_dict.
type pthT struct {
	name, class, key string
	numel, offset    int64
	size, stride     []int64
}

// statePickle assembles torch.save's pickle of an OrderedDict of the
// tensors, as PyTorch writes it (legacy: with the legacy format's
// 6-tuple persistent ids).
func statePickle(ts []pthT, legacy bool) []byte {
	p := new(pk)
	p.op(0x80, 2).global("collections", "OrderedDict").op(')', 'R', '(')
	for _, t := range ts {
		p.str(t.name).global("torch._utils", "_rebuild_tensor_v2").op('(', '(')
		p.str("storage").global("torch", t.class).str(t.key).str("cpu").int(t.numel)
		if legacy {
			p.op('N')
		}
		p.op('t', 'Q').int(t.offset).ints(t.size).ints(t.stride).op(0x89)
		p.global("collections", "OrderedDict").op(')', 'R', 't', 'R')
	}
	return p.op('u', '.').Bytes()
}

// zentry is an entry of a hand-made zip archive: claim, if not zero, is
// the uncompressed size its header claims (stored raw); deflate
// compresses data.
type zentry struct {
	name    string
	data    []byte
	claim   uint64
	deflate bool
}

func makeZip(t testing.TB, es ...zentry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		var w io.Writer
		var err error
		switch {
		case e.claim != 0:
			w, err = zw.CreateRaw(&zip.FileHeader{Name: e.name, Method: zip.Store,
				CRC32: crc32.ChecksumIEEE(e.data), CompressedSize64: uint64(len(e.data)), UncompressedSize64: e.claim})
		case e.deflate:
			w, err = zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		default:
			w, err = zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store})
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// floats returns xs as little-endian float32 bytes.
func floats(xs ...float32) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, xs)
	return b.Bytes()
}

// pthZip makes a zip-format .pth of the tensors, whose storages hold
// data[key].
func pthZip(t testing.TB, ts []pthT, data map[string][]byte) []byte {
	es := []zentry{{name: "m/data.pkl", data: statePickle(ts, false)}}
	for _, k := range sortedKeys(data) {
		es = append(es, zentry{name: "m/data/" + k, data: data[k]})
	}
	return makeZip(t, es...)
}

// pthLegacy makes a legacy-format .pth: the storages' records follow
// the pickles in keys' order, each its count (counts[key], or the
// data's length / 4) and data.
func pthLegacy(ts []pthT, keys []string, data map[string][]byte, counts map[string]uint64) []byte {
	var b bytes.Buffer
	b.Write(new(pk).op(0x80, 2, 0x8a, 10).op([]byte(legacyMagic)...).op('.').Bytes())
	b.Write(new(pk).op(0x80, 2).int(1001).op('.').Bytes())
	b.Write(new(pk).op(0x80, 2, '}').str("little_endian").op(0x88, 's', '.').Bytes())
	b.Write(statePickle(ts, true))
	p := new(pk).op(0x80, 2, '(')
	for _, k := range keys {
		p.str(k)
	}
	b.Write(p.op('l', '.').Bytes())
	for _, k := range keys {
		n, ok := counts[k]
		if !ok {
			n = uint64(len(data[k]) / 4)
		}
		binary.Write(&b, binary.LittleEndian, n)
		b.Write(data[k])
	}
	return b.Bytes()
}

// goodTensors is a small valid state_dict: a 2×2 float32 and its
// transpose (a strided view of the same storage).
var goodTensors = []pthT{
	{"w", "FloatStorage", "0", 4, 0, []int64{2, 2}, []int64{2, 1}},
	{"wt", "FloatStorage", "0", 4, 0, []int64{2, 2}, []int64{1, 2}},
}

func goodData() map[string][]byte { return map[string][]byte{"0": floats(1, 2, 3, 4)} }

// TestReadPthBuilt reads the hand-made files of both formats: what the
// hostile cases below break is otherwise right.
func TestReadPthBuilt(t *testing.T) {
	want := map[string]ckpt.Tensor{
		"w":  {Shape: []int{2, 2}, Data: []float32{1, 2, 3, 4}},
		"wt": {Shape: []int{2, 2}, Data: []float32{1, 3, 2, 4}},
	}
	for name, file := range map[string][]byte{
		"zip":    pthZip(t, goodTensors, goodData()),
		"legacy": pthLegacy(goodTensors, []string{"0"}, goodData(), nil),
	} {
		if len(file) > 1024 {
			t.Errorf("%s: %d bytes, want a seed under 1 KB", name, len(file))
		}
		ts, err := readPthFrom(bytes.NewReader(file), int64(len(file)), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(ts, want) {
			t.Errorf("%s: read %v, want %v", name, ts, want)
		}
	}
}

// hostilePth lists files that ask for too much, each with a word its
// one-line error must contain; big adds the ones over 1 KB, which take
// a moment to build (too long for every fuzzing worker's start).
func hostilePth(t testing.TB, big bool) map[string]struct {
	file []byte
	want string
} {
	type hc = struct {
		file []byte
		want string
	}
	one := func(size, stride []int64, offset, numel int64) []byte {
		return pthZip(t, []pthT{{"w", "FloatStorage", "0", numel, offset, size, stride}},
			map[string][]byte{"0": make([]byte, 4*numel)})
	}
	// rawPickle wraps a pickle in an otherwise valid archive.
	rawPickle := func(p []byte) []byte { return makeZip(t, zentry{name: "m/data.pkl", data: p}) }
	lenOp := func(op byte, n int, claim uint64) []byte {
		p := new(pk).op(0x80, 4, op)
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], claim)
		return p.op(b[:n]...).op('.').Bytes()
	}
	var zeros bytes.Buffer // 16 MiB of zeros deflate to 16 KB
	if big {
		zw := zip.NewWriter(&zeros)
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "m/data/0", Method: zip.Deflate})
		io.CopyN(w, zeroReader{}, 16<<20)
		w, _ = zw.CreateHeader(&zip.FileHeader{Name: "m/data.pkl", Method: zip.Store})
		w.Write(statePickle([]pthT{{"w", "FloatStorage", "0", 4 << 20, 0, []int64{4 << 20}, []int64{1}}}, false))
		zw.Close()
	}
	var inflating bytes.Buffer // a deflate stream of 64 KB of zeros
	fw, _ := flate.NewWriter(&inflating, flate.BestCompression)
	fw.Write(make([]byte, 64<<10))
	fw.Close()
	moreThanClaimed := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "m/data.pkl", Method: zip.Store})
		w.Write(statePickle([]pthT{{"w", "FloatStorage", "0", 1, 0, []int64{1}, []int64{1}}}, false))
		w, _ = zw.CreateRaw(&zip.FileHeader{Name: "m/data/0", Method: zip.Deflate,
			CompressedSize64: uint64(inflating.Len()), UncompressedSize64: 4})
		w.Write(inflating.Bytes())
		zw.Close()
		return buf.Bytes()
	}()
	many := make([]pthT, 130) // 130 views of one 1 Mi-value storage: 130 Mi floats
	for i := range many {
		many[i] = pthT{string(rune('a'+i%26)) + strings.Repeat("x", i/26), "FloatStorage", "0", 1 << 20, 0, []int64{1 << 20}, []int64{1}}
	}
	flood := func(unit []byte, n int) []byte {
		p := new(pk).op(0x80, 4)
		for range n {
			p.op(unit...)
		}
		return p.op('.').Bytes()
	}
	cases := map[string]hc{
		// Storages and views.
		"storage 2^40 values (zip)": {pthZip(t, []pthT{{"w", "FloatStorage", "0", 1 << 40, 0, []int64{1 << 40}, []int64{1}}},
			map[string][]byte{"0": floats(1)}), "claims 1099511627776 float32 values"},
		"storage 2^40 values (legacy)": {pthLegacy([]pthT{{"w", "FloatStorage", "0", 1 << 40, 0, []int64{1 << 40}, []int64{1}}},
			[]string{"0"}, map[string][]byte{"0": floats(1)}, nil), "more than the file's"},
		"storage bytes overflow": {pthZip(t, []pthT{{"w", "DoubleStorage", "0", 1 << 61, 0, []int64{1}, []int64{1}}},
			map[string][]byte{"0": floats(1, 1)}), "claims 2305843009213693952 float64 values"},
		"legacy record count": {pthLegacy(goodTensors, []string{"0"}, goodData(), map[string]uint64{"0": 1 << 40}),
			"holds 1099511627776 values"},
		"legacy record truncated": {pthLegacy(goodTensors, []string{"0"}, map[string][]byte{"0": floats(1)}, map[string]uint64{"0": 4}),
			"remain in the file"},
		"legacy storage missing": {pthLegacy(goodTensors, nil, nil, nil), "not in the file"},
		"legacy key repeated":    {pthLegacy(goodTensors, []string{"0", "0"}, goodData(), nil), "unknown or repeated"},
		"stride 0":               {one([]int64{1 << 30, 4}, []int64{0, 1}, 0, 4), "stride below 1"},
		"negative stride":        {one([]int64{4}, []int64{-1}, 3, 4), "stride below 1"},
		"sizes wrap":             {one([]int64{1 << 32, 1 << 32, 2}, []int64{1, 1, 1}, 0, 4), "overflows"},
		"view repeats":           {one([]int64{4, 4}, []int64{1, 1}, 0, 8), "repeating values"},
		"extent overflows":       {one([]int64{2, 3}, []int64{1, 1<<63 - 1}, 2, 8), "extent overflows"},
		"overrun":                {one([]int64{2, 2}, []int64{2, 1}, 1, 4), "overrun a storage of 4"},
		"negative offset":        {one([]int64{2}, []int64{1}, -1, 4), "offset -1"},
		"negative size":          {one([]int64{-2, -2}, []int64{1, 1}, 0, 4), "negative dimension"},
		"too many dimensions":    {one(make([]int64, 40), make([]int64, 40), 0, 4), "40 dimensions"},
		"sizes and strides":      {one([]int64{2, 2}, []int64{1}, 0, 4), "2 sizes and 1 strides"},
		// Zip entries.
		"entry claims 1 TB": {makeZip(t, zentry{name: "m/data.pkl", data: statePickle(nil, false)},
			zentry{name: "m/data/0", data: floats(1), claim: 1 << 40}), "claims 1099511627776 bytes"},
		"entries inflate": {makeZip(t, zentry{name: "m/data.pkl", data: statePickle(nil, false)},
			zentry{name: "m/data/0", data: floats(1), claim: 100 << 20}), "zip bomb"},
		"entry holds more":     {moreThanClaimed, "entry \"m/data/0\""},
		"data size mismatch":   {pthZip(t, goodTensors, map[string][]byte{"0": floats(1, 2, 3)}), "its entry holds 12 bytes"},
		"storage entry absent": {pthZip(t, goodTensors, nil), `has no entry "m/data/0"`},
		"pickle claims 1 TB": {makeZip(t, zentry{name: "m/data.pkl", data: statePickle(nil, false), claim: 1 << 40}),
			"claims 1099511627776 bytes"},
		"no data.pkl":  {makeZip(t, zentry{name: "m/x", data: []byte("x")}), "without data.pkl"},
		"TorchScript":  {makeZip(t, zentry{name: "m/data.pkl", data: []byte(".")}, zentry{name: "m/constants.pkl", data: []byte(".")}), "TorchScript"},
		"big-endian":   {makeZip(t, zentry{name: "m/data.pkl", data: statePickle(nil, false)}, zentry{name: "m/byteorder", data: []byte("big")}), "byte order"},
		"not a pickle": {[]byte("not a torch file"), "not a torch.save file"},
		// Pickle lengths, growth and nesting.
		"BINUNICODE8 2^40":  {rawPickle(lenOp(0x8d, 8, 1<<40)), "1099511627776 bytes claimed"},
		"BINBYTES8 2^40":    {rawPickle(lenOp(0x8e, 8, 1<<40)), "1099511627776 bytes claimed"},
		"BYTEARRAY8 2^40":   {rawPickle(lenOp(0x96, 8, 1<<40)), "1099511627776 bytes claimed"},
		"BINUNICODE 2^31":   {rawPickle(lenOp('X', 4, 1<<31)), "2147483648 bytes claimed"},
		"BINBYTES 2^31":     {rawPickle(lenOp('B', 4, 1<<31)), "2147483648 bytes claimed"},
		"LONG4 2^31":        {rawPickle(lenOp(0x8b, 4, 1<<31)), "2147483648 bytes claimed"},
		"FRAME 2^40":        {rawPickle(lenOp(0x95, 8, 1<<40)), "a frame of 1099511627776 bytes"},
		"nesting":           {rawPickle(flood([]byte{'('}, pickleMaxDepth+1)), "nesting too deep"},
		"memo never stored": {rawPickle(new(pk).op(0x80, 2, 'h', 7, '.').Bytes()), "never stored"},
		"unhashable key":    {rawPickle(new(pk).op(0x80, 2, '}', ')', 'N', 's', '.').Bytes()), "dict key of type tuple"},
		"self-nested dict":  {rawPickle(new(pk).op(0x80, 2, '}', 'q', 0).str("k").op('h', 0, 's', '.').Bytes()), "a dict, not a tensor"},
		"not a dict":        {rawPickle(new(pk).op(0x80, 2, ']', '.').Bytes()), "holds a list"},
		"no STOP":           {rawPickle(new(pk).op(0x80, 2, 'N').Bytes()), "no STOP"},
		// Code.
		"GLOBAL os.system": {rawPickle(new(pk).op(0x80, 2).global("os", "system").str("echo hi").op(0x85, 'R', '.').Bytes()),
			`asks for "os.system"`},
		"STACK_GLOBAL builtins.eval": {rawPickle(new(pk).op(0x80, 4).str("builtins").str("eval").op(0x93).str("1").op(0x85, 'R', '.').Bytes()),
			`asks for "builtins.eval"`},
		"REDUCE a storage class": {rawPickle(new(pk).op(0x80, 2).global("torch", "FloatStorage").op(')', 'R', '.').Bytes()),
			`asks to call "torch.FloatStorage"`},
		"OrderedDict with items": {rawPickle(new(pk).op(0x80, 2).global("collections", "OrderedDict").op(']', 0x85, 'R', '.').Bytes()),
			"OrderedDict with 1 arguments"},
		"NEWOBJ": {rawPickle(new(pk).op(0x80, 2).global("collections", "OrderedDict").op(')', 0x81, '.').Bytes()),
			"construct an object"},
		"persistent id in the legacy header": {append(new(pk).op(0x80, 2, 'N', 'Q', '.').Bytes(), make([]byte, 16)...),
			"no magic number"},
	}
	if !big {
		return cases
	}
	memo := new(pk).op(0x80, 4, 'N')
	for i := range pickleMaxMemo + 1 {
		memo.op('r', byte(i), byte(i>>8), byte(i>>16), 0)
	}
	cases["tensors total"] = hc{pthZip(t, many, map[string][]byte{"0": make([]byte, 4<<20)}), "tensors total more than"}
	cases["zip bomb"] = hc{zeros.Bytes(), "zip bomb"}
	cases["opcodes"] = hc{rawPickle(flood([]byte{'N', '0'}, pickleMaxOps/2+1)), "more than 1048576 opcodes"}
	cases["stack"] = hc{rawPickle(flood([]byte{'N'}, pickleMaxStack+1)), "stack holds more than"}
	cases["memo"] = hc{rawPickle(memo.op('.').Bytes()), "memo holds more than"}
	return cases
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestReadPthHostile wants every hostile file refused with a one-line
// error naming what is wrong, quickly and with little memory: before,
// a 2^40-element storage, a 2^40-byte string or a stride-0 view was a
// fatal out-of-memory error, and a zip bomb was read (1.9 GB) before
// the shapes were checked.
func TestReadPthHostile(t *testing.T) {
	for name, c := range hostilePth(t, true) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := readPthFrom(bytes.NewReader(c.file), int64(len(c.file)), nil)
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: read, want an error", name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line containing %q", name, msg, c.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("%s: allocated %d MB before refusing it", name, alloc>>20)
		}
		if elapsed > 2*time.Second {
			t.Errorf("%s: took %v before refusing it", name, elapsed)
		}
	}
}

// TestReadPthSkipped wants integer tensors and skipped names neither
// read nor converted, and a parameter (state_dict(keep_vars=True)) read
// as its tensor.
func TestReadPthSkipped(t *testing.T) {
	p := new(pk)
	p.op(0x80, 2).global("collections", "OrderedDict").op(')', 'R', '(')
	p.str("p").global("torch._utils", "_rebuild_parameter").op('(')
	p.global("torch._utils", "_rebuild_tensor_v2").op('(', '(')
	p.str("storage").global("torch", "HalfStorage").str("h").str("cpu").int(2).op('t', 'Q')
	p.int(0).ints([]int64{2}).ints([]int64{1}).op(0x89, 'N', 't', 'R')
	p.op(0x88, 'N', 't', 'R')
	p.str("n").global("torch._utils", "_rebuild_tensor_v2").op('(', '(')
	p.str("storage").global("torch", "LongStorage").str("l").str("cpu").int(1).op('t', 'Q')
	p.int(0).op(')', ')', 0x89, 'N', 't', 'R')
	p.op('u', '}', 'b', '.') // BUILD: the state_dict's _metadata
	file := makeZip(t, zentry{name: "a/data.pkl", data: p.Bytes()},
		zentry{name: "a/data/h", data: []byte{0x00, 0x38, 0x00, 0xbc}}, // 0.5, -1 in float16
		zentry{name: "a/data/l", data: make([]byte, 8)})
	ts, err := readPthFrom(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ckpt.Tensor{"p": {Shape: []int{2}, Data: []float32{0.5, -1}}}
	if !reflect.DeepEqual(ts, want) {
		t.Errorf("read %v, want %v", ts, want)
	}
	ts, err = readPthFrom(bytes.NewReader(file), int64(len(file)), func(string) bool { return true })
	if err != nil || len(ts) != 0 {
		t.Errorf("skipping every name: %v, %v", ts, err)
	}
}

// TestReadPthNotRegular wants a FIFO refused at once, not read forever.
func TestReadPthNotRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.pth")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, read := range []func(string) error{
		func(p string) error { _, err := readPth(p, nil); return err },
		func(p string) error { _, err := readInceptionTensors(p); return err },
	} {
		if err := read(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO: %v, want not a regular file", err)
		}
	}
}

// FuzzReadPth feeds the .pth reader mutations of small valid files of
// both formats and of the hostile ones under 1 KB: it must return
// tensors whose shapes match their data, or an error, and never panic
// or allocate beyond the input's size and the documented limits.
func FuzzReadPth(f *testing.F) {
	f.Add(pthZip(f, goodTensors, goodData()))
	f.Add(pthLegacy(goodTensors, []string{"0"}, goodData(), nil))
	for _, c := range hostilePth(f, false) {
		if len(c.file) >= 1024 {
			f.Fatalf("a seed of %d bytes: keep seeds under 1 KB", len(c.file))
		}
		f.Add(c.file)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := readPthFrom(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			return
		}
		for name, tn := range ts {
			n := 1
			for _, d := range tn.Shape {
				n *= d
			}
			if n != len(tn.Data) {
				t.Errorf("tensor %q: shape %v for %d values", name, tn.Shape, len(tn.Data))
			}
		}
	})
}
