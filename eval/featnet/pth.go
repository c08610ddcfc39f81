package featnet

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path"
	"strconv"
	"strings"

	"github.com/x448/float16"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/internal/regfile"
)

// Limits on what a .pth file may ask for (docs/reliability.md, "Limits
// on what files may ask"). Each is checked before the allocation it
// guards.
const (
	// pthMaxData bounds the bytes of storage data read from one file,
	// and again the float32 tensors made from them. pytorch-fid's
	// Inception weights hold 95 MB.
	pthMaxData = 512 << 20
	// pthMaxPickle bounds a pickle stream (data.pkl); Inception's is
	// about 100 KB.
	pthMaxPickle = 4 << 20
	// pthMaxRatio bounds how much a zip archive's entries may inflate:
	// torch.save stores them uncompressed (ratio 1), and float weights
	// deflate by about 1.1×, so entries claiming more than 16 times the
	// archive's real size (plus 1 MiB for tiny files) are a zip bomb.
	pthMaxRatio = 16
	// pthMaxDims bounds a tensor's dimensions.
	pthMaxDims = 32
)

// isSafetensors reports whether the file at path is a safetensors file
// (an 8-byte header length, then a JSON object) rather than a torch.save
// file (a zip archive, or the legacy pickle stream). Only regular files
// are read: a FIFO or device would block or never end.
func isSafetensors(path string) (bool, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 9)
	if _, err := io.ReadFull(f, head); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return head[8] == '{', nil
}

// readPth reads the tensors of a state_dict saved with torch.save, as
// pytorch-fid's pt_inception-2015-12-05-6726825d.pth is (both the zip
// format of PyTorch ≥ 1.6 and the legacy one). Float32, float16,
// bfloat16 and float64 tensors are converted to contiguous float32;
// tensors skip names (and integer ones, such as num_batches_tracked)
// are left out.
//
// The file may come from anyone: it is read by our own pickle reader
// (pth_pickle.go), which runs no code, and every size it claims is
// checked against the file's real size and the limits above before
// anything is allocated.
func readPth(path string, skip func(name string) bool) (map[string]ckpt.Tensor, error) {
	f, fi, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	defer f.Close()
	ts, err := readPthFrom(f, fi.Size(), skip)
	if err != nil {
		return nil, fmt.Errorf("featnet: %s: %w", path, err)
	}
	return ts, nil
}

// readPthFrom reads a torch.save file of size bytes from r (see readPth).
func readPthFrom(r io.ReaderAt, size int64, skip func(name string) bool) (map[string]ckpt.Tensor, error) {
	obj, err := readPthObject(r, size)
	if err != nil {
		return nil, err
	}
	return pthStateDict(obj, skip)
}

// readPthObject reads the object a torch.save file of size bytes holds:
// its tensors are checked but their storages are read only when
// pthStateDict gathers them.
func readPthObject(r io.ReaderAt, size int64) (any, error) {
	var head [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("not a torch.save file: %w", err)
	}
	switch {
	case string(head[:]) == "PK\x03\x04":
		return readPthZip(r, size)
	case head[0] == 0x80: // a pickle's PROTO: the legacy format
		if size > pthMaxData+3*pthMaxPickle {
			return nil, fmt.Errorf("a legacy torch.save file of %d bytes, more than the %d a .pth may hold", size, pthMaxData+3*pthMaxPickle)
		}
		buf := make([]byte, size) // the file's real size, bounded above
		if n, err := r.ReadAt(buf, 0); n < len(buf) {
			return nil, err
		}
		return readPthLegacy(buf)
	}
	return nil, errors.New("not a torch.save file (neither a zip archive nor a pickle)")
}

// readPthZip reads torch.save's zip format: ARCHIVE/data.pkl pickles the
// state_dict, whose storages are the entries ARCHIVE/data/KEY.
func readPthZip(r io.ReaderAt, size int64) (any, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("zip archive: %w", err)
	}
	// The entries' claimed sizes are checked against the archive's real
	// size before any is read; each is then read through a LimitReader
	// of its claimed size, so a lying header cannot make us read more.
	budget := uint64(min(size, 1<<40))*pthMaxRatio + 1<<20 // no overflow, whatever size a sparse file has
	var total uint64
	entries := make(map[string]*zip.File, len(zr.File))
	var pkl *zip.File
	for _, f := range zr.File {
		name := shortName(f.Name)
		if f.UncompressedSize64 > pthMaxData {
			return nil, fmt.Errorf("entry %q claims %d bytes, more than the %d a .pth may hold", name, f.UncompressedSize64, pthMaxData)
		}
		if total += f.UncompressedSize64; total > budget {
			return nil, fmt.Errorf("entries claim more than %d bytes from a %d-byte archive: more than the %d× inflation a tensor file can have (a zip bomb?)", budget, size, pthMaxRatio)
		}
		if _, dup := entries[f.Name]; dup {
			return nil, fmt.Errorf("entry %q appears twice", name)
		}
		entries[f.Name] = f
		switch path.Base(f.Name) {
		case "constants.pkl":
			return nil, errors.New("a TorchScript archive, not a torch.save'd state_dict")
		case "data.pkl":
			if pkl != nil {
				return nil, fmt.Errorf("two data.pkl entries (%q and %q)", shortName(pkl.Name), name)
			}
			pkl = f
		}
	}
	if pkl == nil {
		return nil, errors.New("a zip archive without data.pkl: not a torch.save file")
	}
	prefix := strings.TrimSuffix(pkl.Name, "data.pkl")
	if f, ok := entries[prefix+"byteorder"]; ok {
		b, err := readZipEntry(f, 16)
		if err != nil {
			return nil, err
		}
		if string(b) != "little" {
			return nil, fmt.Errorf("byte order %q; only little-endian files are read", shortName(string(b)))
		}
	}
	pickle, err := readZipEntry(pkl, pthMaxPickle)
	if err != nil {
		return nil, err
	}
	storages := map[string]*pthStorage{}
	u := &unpickler{buf: pickle, global: pthGlobal, reduce: pthReduce}
	u.persistent = func(pid any) (any, error) {
		t, ok := pid.(pyTuple)
		if !ok || len(t) != 5 {
			return nil, fmt.Errorf("a persistent id of type %s, want a 5-tuple (storage, type, key, location, size)", pyType(pid))
		}
		dt, key, numel, err := storageID(t)
		if err != nil {
			return nil, err
		}
		if s, ok := storages[key]; ok {
			return s.same(dt, numel)
		}
		f, ok := entries[prefix+"data/"+key]
		if !ok {
			return nil, fmt.Errorf("storage %q has no entry %q", shortName(key), shortName(prefix+"data/"+key))
		}
		if nb, ok := dt.bytes(numel); !ok || nb != f.UncompressedSize64 {
			return nil, fmt.Errorf("storage %q claims %d %s values, but its entry holds %d bytes", shortName(key), numel, dt.name, f.UncompressedSize64)
		}
		s := &pthStorage{dtype: dt, key: key, numel: numel, load: func() ([]byte, error) {
			return readZipEntry(f, pthMaxData)
		}}
		storages[key] = s
		return s, nil
	}
	obj, err := u.load()
	if err != nil {
		return nil, fmt.Errorf("data.pkl: %w", err)
	}
	return obj, nil
}

// readZipEntry reads a zip entry of at most limit bytes (its claimed
// size, checked first) and checks its CRC.
func readZipEntry(f *zip.File, limit uint64) ([]byte, error) {
	name := shortName(f.Name)
	if f.UncompressedSize64 > limit {
		return nil, fmt.Errorf("entry %q claims %d bytes, more than the %d it may hold", name, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("entry %q: %w", name, err)
	}
	defer rc.Close()
	buf := make([]byte, f.UncompressedSize64)
	if _, err := io.ReadFull(io.LimitReader(rc, int64(len(buf))), buf); err != nil {
		return nil, fmt.Errorf("entry %q: %w", name, err)
	}
	// Reading on to the end makes archive/zip check the CRC (and that
	// the entry holds no more than it claims).
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || !errors.Is(err, io.EOF) {
		if err == nil || n != 0 {
			err = errors.New("more data")
		}
		return nil, fmt.Errorf("entry %q: after its claimed %d bytes: %w", name, len(buf), err)
	}
	return buf, nil
}

// legacyMagic is the magic number opening a legacy torch.save file
// (0x1950a86a20f9469cfc6c), as a LONG1's little-endian bytes.
const legacyMagic = "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"

// readPthLegacy reads torch.save's legacy format, held in buf: pickles
// of the magic number, the protocol version (1001), the system's
// description, the state_dict and its storages' keys, then each
// storage as an 8-byte element count and its raw values.
func readPthLegacy(buf []byte) (any, error) {
	u := &unpickler{buf: buf, global: pthGlobal, reduce: pthReduce}
	v, err := u.load()
	if err != nil {
		return nil, fmt.Errorf("not a torch.save file (no magic number): %w", err)
	}
	if v != pyLong(legacyMagic) {
		return nil, errors.New("not a torch.save file (no magic number)")
	}
	if v, err = u.load(); err != nil {
		return nil, fmt.Errorf("legacy torch.save protocol: %w", err)
	}
	if v != int64(1001) {
		return nil, fmt.Errorf("legacy torch.save protocol: a %s, want 1001", pyType(v))
	}
	v, err = u.load()
	if err != nil {
		return nil, fmt.Errorf("system description: %w", err)
	}
	if d, ok := v.(*pyDict); ok {
		if le, ok := d.get("little_endian"); ok && le != true {
			return nil, errors.New("written on a big-endian machine; only little-endian files are read")
		}
	}
	storages := map[string]*pthStorage{}
	u.persistent = func(pid any) (any, error) {
		t, ok := pid.(pyTuple)
		if !ok || len(t) != 6 {
			return nil, fmt.Errorf("a persistent id of type %s, want a 6-tuple (storage, type, key, location, size, view)", pyType(pid))
		}
		if t[5] != nil {
			return nil, errors.New("a storage view (legacy view metadata), which a state_dict does not use")
		}
		dt, key, numel, err := storageID(t[:5])
		if err != nil {
			return nil, err
		}
		if s, ok := storages[key]; ok {
			return s.same(dt, numel)
		}
		if nb, ok := dt.bytes(numel); !ok || nb > uint64(len(buf)) {
			return nil, fmt.Errorf("storage %q claims %d %s values, more than the file's %d bytes hold", shortName(key), numel, dt.name, len(buf))
		}
		s := &pthStorage{dtype: dt, key: key, numel: numel}
		storages[key] = s
		return s, nil
	}
	obj, err := u.load()
	if err != nil {
		return nil, fmt.Errorf("state_dict: %w", err)
	}
	u.persistent = nil
	v, err = u.load()
	if err != nil {
		return nil, fmt.Errorf("storage keys: %w", err)
	}
	keys, ok := v.(*pyList)
	if !ok {
		return nil, fmt.Errorf("storage keys are a %s, want a list", pyType(v))
	}
	pos := u.pos
	for _, k := range keys.items {
		key, _ := k.(string)
		s, ok := storages[key]
		if !ok || s.data != nil {
			return nil, fmt.Errorf("storage key %q is unknown or repeated", shortName(key))
		}
		if len(buf)-pos < 8 {
			return nil, fmt.Errorf("storage %q: file truncated", shortName(key))
		}
		n := binary.LittleEndian.Uint64(buf[pos:])
		pos += 8
		if n != s.numel {
			return nil, fmt.Errorf("storage %q holds %d values, its tensors claim %d", shortName(key), n, s.numel)
		}
		nb, _ := s.dtype.bytes(n) // checked against len(buf) in persistent
		if nb > uint64(len(buf)-pos) {
			return nil, fmt.Errorf("storage %q: %d bytes claimed, %d remain in the file", shortName(key), nb, len(buf)-pos)
		}
		s.data = buf[pos : pos+int(nb) : pos+int(nb)]
		pos += int(nb)
	}
	for _, s := range storages {
		if s.data == nil {
			return nil, fmt.Errorf("storage %q is not in the file", shortName(s.key))
		}
	}
	return obj, nil
}

// pthDtype describes a storage class: torch.FloatStorage and the like.
type pthDtype struct {
	name string
	size uint64
	// at decodes the value at the start of b; nil for integer and bool
	// storages, whose tensors are left out.
	at func(b []byte) float32
}

// bytes returns numel values' size in bytes, and false on overflow.
func (d *pthDtype) bytes(numel uint64) (uint64, bool) {
	hi, lo := bits.Mul64(numel, d.size)
	return lo, hi == 0
}

// pthDtypeOf returns the storage class named module.name, or nil.
func pthDtypeOf(global string) *pthDtype {
	switch global {
	case "torch.FloatStorage":
		return &pthDtype{"float32", 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }}
	case "torch.HalfStorage":
		return &pthDtype{"float16", 2, func(b []byte) float32 { return float16.Frombits(binary.LittleEndian.Uint16(b)).Float32() }}
	case "torch.BFloat16Storage":
		return &pthDtype{"bfloat16", 2, func(b []byte) float32 { return math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16) }}
	case "torch.DoubleStorage":
		return &pthDtype{"float64", 8, func(b []byte) float32 { return float32(math.Float64frombits(binary.LittleEndian.Uint64(b))) }}
	case "torch.LongStorage":
		return &pthDtype{"int64", 8, nil}
	case "torch.IntStorage":
		return &pthDtype{"int32", 4, nil}
	case "torch.ShortStorage":
		return &pthDtype{"int16", 2, nil}
	case "torch.CharStorage":
		return &pthDtype{"int8", 1, nil}
	case "torch.ByteStorage":
		return &pthDtype{"uint8", 1, nil}
	case "torch.BoolStorage":
		return &pthDtype{"bool", 1, nil}
	}
	return nil
}

// pthStorage is a storage a tensor views: numel values of dtype, in the
// zip entry or legacy record named key. Its data is read only when a
// tensor that is kept views it.
type pthStorage struct {
	dtype *pthDtype
	key   string
	numel uint64
	data  []byte
	load  func() ([]byte, error)
}

// same returns s if a second persistent id for s's key agrees with it.
func (s *pthStorage) same(dt *pthDtype, numel uint64) (*pthStorage, error) {
	if dt.name != s.dtype.name || numel != s.numel {
		return nil, fmt.Errorf("storage %q is both %d %s and %d %s values", shortName(s.key), s.numel, s.dtype.name, numel, dt.name)
	}
	return s, nil
}

// storageID checks a persistent id's ("storage", class, key, location,
// numel) and returns the class, key and numel.
func storageID(t pyTuple) (*pthDtype, string, uint64, error) {
	if t[0] != "storage" {
		return nil, "", 0, fmt.Errorf("a persistent id for a %s, want a storage", pyType(t[0]))
	}
	g, _ := t[1].(pyGlobal)
	dt := pthDtypeOf(string(g))
	key, ok := t[2].(string)
	numel, ok2 := t[4].(int64)
	if dt == nil || !ok || !ok2 {
		return nil, "", 0, fmt.Errorf("a storage id of a %s, %s and %s, want a storage class, str key and int size", pyType(t[1]), pyType(t[2]), pyType(t[4]))
	}
	if numel < 0 {
		return nil, "", 0, fmt.Errorf("storage %q of %d values", shortName(key), numel)
	}
	return dt, key, uint64(numel), nil
}

// pthTensor is a tensor's view of a storage, checked to lie within it.
type pthTensor struct {
	storage      *pthStorage
	offset       uint64
	size, stride []uint64
	count        uint64
}

// pthGlobal resolves the names a state_dict's pickle may use; anything
// else is refused, since pickle's callables are how a pickle runs code.
func pthGlobal(module, name string) (any, error) {
	full := module + "." + name
	switch full {
	case "collections.OrderedDict", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter":
		return pyGlobal(full), nil
	}
	if pthDtypeOf(full) != nil {
		return pyGlobal(full), nil
	}
	return nil, fmt.Errorf("the pickle asks for %q, which a state_dict never needs (refused: positgan runs no code from .pth files)", shortName(full))
}

// pthReduce "calls" f: an empty OrderedDict, or a tensor rebuilt from
// its storage, offset, size and stride.
func pthReduce(f pyGlobal, args pyTuple) (any, error) {
	switch f {
	case "collections.OrderedDict":
		if len(args) != 0 {
			return nil, fmt.Errorf("OrderedDict with %d arguments, want none", len(args))
		}
		return newPyDict(), nil
	case "torch._utils._rebuild_tensor_v2":
		// (storage, offset, size, stride, requires_grad, backward_hooks[, metadata])
		if len(args) != 6 && len(args) != 7 {
			return nil, fmt.Errorf("_rebuild_tensor_v2 with %d arguments, want 6 or 7", len(args))
		}
		s, ok := args[0].(*pthStorage)
		off, ok2 := args[1].(int64)
		if !ok || !ok2 {
			return nil, fmt.Errorf("_rebuild_tensor_v2 of a %s at a %s, want a storage and an int offset", pyType(args[0]), pyType(args[1]))
		}
		size, err := intTuple(args[2])
		if err != nil {
			return nil, fmt.Errorf("tensor size: %w", err)
		}
		stride, err := intTuple(args[3])
		if err != nil {
			return nil, fmt.Errorf("tensor stride: %w", err)
		}
		return newPthTensor(s, off, size, stride)
	case "torch._utils._rebuild_parameter":
		// (data, requires_grad, backward_hooks): a state_dict(keep_vars=True)
		if len(args) != 3 {
			return nil, fmt.Errorf("_rebuild_parameter with %d arguments, want 3", len(args))
		}
		t, ok := args[0].(*pthTensor)
		if !ok {
			return nil, fmt.Errorf("_rebuild_parameter of a %s, want a tensor", pyType(args[0]))
		}
		return t, nil
	}
	return nil, fmt.Errorf("the pickle asks to call %q, which a state_dict never needs (refused: positgan runs no code from .pth files)", shortName(string(f)))
}

// intTuple returns a tuple of ints.
func intTuple(v any) ([]int64, error) {
	t, ok := v.(pyTuple)
	if !ok {
		return nil, fmt.Errorf("a %s, want a tuple of ints", pyType(v))
	}
	if len(t) > pthMaxDims {
		return nil, fmt.Errorf("%d dimensions, more than %d", len(t), pthMaxDims)
	}
	xs := make([]int64, len(t))
	for i, x := range t {
		if xs[i], ok = x.(int64); !ok {
			return nil, fmt.Errorf("a %s among its ints", pyType(x))
		}
	}
	return xs, nil
}

// newPthTensor checks a view of s — every value it addresses lies in s,
// with no arithmetic overflowing — before anything is allocated for it.
// A dimension longer than 1 must have a stride of at least 1: stride 0
// (expand) repeats values and a negative stride is not something
// PyTorch stores; and a view may not have more values than its storage
// (an overlapping as_strided view), so a tensor never outgrows the file.
func newPthTensor(s *pthStorage, offset int64, size, stride []int64) (*pthTensor, error) {
	if len(size) != len(stride) {
		return nil, fmt.Errorf("%d sizes and %d strides", len(size), len(stride))
	}
	if offset < 0 {
		return nil, fmt.Errorf("storage offset %d", offset)
	}
	t := &pthTensor{storage: s, offset: uint64(offset), size: make([]uint64, len(size)), stride: make([]uint64, len(size)), count: 1}
	for i, n := range size {
		if n < 0 {
			return nil, fmt.Errorf("size %v has a negative dimension", size)
		}
		if n > 1 && stride[i] < 1 {
			return nil, fmt.Errorf("size %v with stride %v: a stride below 1 repeats or reverses values", size, stride)
		}
		t.size[i] = uint64(n)
		t.stride[i] = uint64(max(stride[i], 0))
		hi, lo := bits.Mul64(t.count, t.size[i])
		if hi != 0 {
			return nil, fmt.Errorf("size %v: the product of the sizes overflows", size)
		}
		t.count = lo
	}
	if t.count == 0 {
		if t.offset > s.numel {
			return nil, fmt.Errorf("storage offset %d beyond a storage of %d values", offset, s.numel)
		}
		return t, nil
	}
	if t.count > s.numel {
		return nil, fmt.Errorf("size %v: %d values from a storage of %d (a view repeating values)", size, t.count, s.numel)
	}
	last := t.offset
	for i, n := range t.size {
		if n <= 1 {
			continue
		}
		hi, ext := bits.Mul64(n-1, t.stride[i])
		var carry uint64
		last, carry = bits.Add64(last, ext, 0)
		if hi != 0 || carry != 0 {
			return nil, fmt.Errorf("size %v, stride %v: the extent overflows", size, stride)
		}
	}
	if last >= s.numel {
		return nil, fmt.Errorf("size %v, stride %v and offset %d overrun a storage of %d values", size, stride, offset, s.numel)
	}
	return t, nil
}

// pthStateDict returns the float tensors of a state_dict (an
// OrderedDict or dict of named tensors) as contiguous float32.
func pthStateDict(obj any, skip func(name string) bool) (map[string]ckpt.Tensor, error) {
	d, ok := obj.(*pyDict)
	if !ok {
		return nil, fmt.Errorf("holds a %s, want a state_dict (torch.save(model.state_dict()))", pyType(obj))
	}
	// First the names, types and totals, so that nothing is read or
	// allocated for a file that asks for too much.
	type kept struct {
		name string
		t    *pthTensor
	}
	var ks []kept
	var out, read uint64 // float32 values to make, storage bytes to read
	loads := map[*pthStorage]bool{}
	for i, k := range d.keys {
		name, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("a key of type %s, want a state_dict of named tensors", pyType(k))
		}
		if skip != nil && skip(name) {
			continue
		}
		t, ok := d.vals[i].(*pthTensor)
		if !ok {
			return nil, &TensorError{Name: shortName(name), Reason: fmt.Sprintf("a %s, not a tensor", pyType(d.vals[i]))}
		}
		s := t.storage
		if s.dtype.at == nil {
			continue
		}
		// Each count is at most its storage's values, each storage's
		// bytes were checked not to overflow: the sums cannot either.
		if out += t.count; out > pthMaxData/4 {
			return nil, fmt.Errorf("the tensors total more than %d float32 values", pthMaxData/4)
		}
		if s.data == nil && !loads[s] {
			loads[s] = true
			if read += s.numel * s.dtype.size; read > pthMaxData {
				return nil, fmt.Errorf("the storages total more than %d bytes", pthMaxData)
			}
		}
		ks = append(ks, kept{name, t})
	}
	ts := make(map[string]ckpt.Tensor, len(ks))
	for _, k := range ks {
		s := k.t.storage
		if s.data == nil {
			b, err := s.load()
			if err != nil {
				return nil, &TensorError{Name: shortName(k.name), Reason: err.Error()}
			}
			s.data = b
		}
		ts[k.name] = k.t.gather()
	}
	return ts, nil
}

// gather copies t's values, in row-major order, to a float32 tensor.
func (t *pthTensor) gather() ckpt.Tensor {
	at, esz := t.storage.dtype.at, t.storage.dtype.size
	data := make([]float32, t.count)
	idx := make([]uint64, len(t.size))
	for k := range data {
		off := t.offset
		for i, j := range idx {
			off += j * t.stride[i]
		}
		data[k] = at(t.storage.data[off*esz:])
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < t.size[i] {
				break
			}
			idx[i] = 0
		}
	}
	var shape []int // nil for a scalar, as ckpt's readers give
	for _, n := range t.size {
		shape = append(shape, int(n))
	}
	return ckpt.Tensor{Shape: shape, Data: data}
}

// shortName returns s cut to 80 bytes: names in errors come from the
// file and may be megabytes long.
func shortName(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:80] + "…"
}

// inceptionBlocks lists the modules of pytorch-fid's InceptionV3 wrapper
// by its blocks.N.M index: a state_dict of the wrapper (rather than of
// fid_inception_v3 itself) names Conv2d_1a_3x3 "blocks.0.0", Mixed_5b
// "blocks.2.0", and so on; the pools in between hold no tensors.
var inceptionBlocks = [][]string{
	{"Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3"},
	{"Conv2d_3b_1x1", "Conv2d_4a_3x3"},
	{"Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a", "Mixed_6b", "Mixed_6c", "Mixed_6d", "Mixed_6e"},
	{"Mixed_7a", "Mixed_7b", "Mixed_7c"},
}

// inceptionName returns the fid_inception_v3 name of a tensor named in
// either layout: "blocks.2.0.branch1x1.conv.weight" becomes
// "Mixed_5b.branch1x1.conv.weight"; other names are returned as they are.
func inceptionName(name string) string {
	rest, ok := strings.CutPrefix(name, "blocks.")
	if !ok {
		return name
	}
	parts := strings.SplitN(rest, ".", 3)
	if len(parts) < 3 {
		return name
	}
	b, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || b < 0 || b >= len(inceptionBlocks) || m < 0 || m >= len(inceptionBlocks[b]) {
		return name
	}
	return inceptionBlocks[b][m] + "." + parts[2]
}

// readInceptionTensors reads an Inception weight file of either kind
// (safetensors or torch.save) and either key layout, under
// fid_inception_v3's names.
func readInceptionTensors(path string) (map[string]ckpt.Tensor, error) {
	st, err := isSafetensors(path)
	if err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	skip := func(name string) bool { return ignoredTensor(inceptionName(name)) }
	var ts map[string]ckpt.Tensor
	if st {
		ts, err = readSafetensors(path, skip)
	} else {
		ts, err = readPth(path, skip)
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]ckpt.Tensor, len(ts))
	for k, v := range ts {
		n := inceptionName(k)
		if _, dup := out[n]; dup {
			return nil, fmt.Errorf("featnet: %s: tensor %s appears under both key layouts", path, n)
		}
		out[n] = v
	}
	return out, nil
}
