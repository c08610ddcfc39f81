package featnet

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/pytorch"
	"github.com/nlpodyssey/gopickle/types"

	"github.com/positgan/positgan/ckpt"
)

// isSafetensors reports whether the file at path is a safetensors file
// (an 8-byte header length, then a JSON object) rather than a torch.save
// file (a zip archive, or the legacy pickle stream).
func isSafetensors(path string) (bool, error) {
	f, err := os.Open(path)
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
// format of PyTorch ≥ 1.6 and the legacy one), with gopickle. Float32,
// float16, bfloat16 and float64 tensors are converted to contiguous
// float32; tensors skip names (and integer ones, such as
// num_batches_tracked) are left out.
func readPth(path string, skip func(name string) bool) (ts map[string]ckpt.Tensor, err error) {
	// gopickle trusts its input more than our own readers do: a
	// malformed file must be an error, not a crash.
	defer func() {
		if p := recover(); p != nil {
			ts, err = nil, fmt.Errorf("featnet: %s: malformed PyTorch file: %v", path, p)
		}
	}()
	obj, err := pytorch.Load(path)
	if err != nil {
		return nil, fmt.Errorf("featnet: %s: %w", path, err)
	}
	ts = map[string]ckpt.Tensor{}
	add := func(k, v any) error {
		name, ok := k.(string)
		if !ok {
			return fmt.Errorf("a key of type %T, want a state_dict of named tensors", k)
		}
		if skip != nil && skip(name) {
			return nil
		}
		t, ok := v.(*pytorch.Tensor)
		if !ok {
			return &TensorError{Name: name, Reason: fmt.Sprintf("a %T, not a tensor", v)}
		}
		ct, isFloat, err := pthTensor(t)
		if err != nil {
			return &TensorError{Name: name, Reason: err.Error()}
		}
		if isFloat {
			ts[name] = ct
		}
		return nil
	}
	switch d := obj.(type) {
	case *types.OrderedDict:
		for e := d.List.Front(); e != nil; e = e.Next() {
			entry := e.Value.(*types.OrderedDictEntry)
			if err := add(entry.Key, entry.Value); err != nil {
				return nil, fmt.Errorf("featnet: %s: %w", path, err)
			}
		}
	case *types.Dict:
		for _, entry := range *d {
			if err := add(entry.Key, entry.Value); err != nil {
				return nil, fmt.Errorf("featnet: %s: %w", path, err)
			}
		}
	default:
		return nil, fmt.Errorf("featnet: %s: holds a %T, want a state_dict (torch.save(model.state_dict()))", path, obj)
	}
	return ts, nil
}

// pthTensor gathers a (possibly strided) tensor into a contiguous
// row-major float32 ckpt.Tensor; isFloat is false for integer tensors.
func pthTensor(t *pytorch.Tensor) (ckpt.Tensor, bool, error) {
	var at func(i int) float32
	var n int
	switch s := t.Source.(type) {
	case *pytorch.FloatStorage:
		at, n = func(i int) float32 { return s.Data[i] }, len(s.Data)
	case *pytorch.HalfStorage:
		at, n = func(i int) float32 { return s.Data[i] }, len(s.Data)
	case *pytorch.BFloat16Storage:
		at, n = func(i int) float32 { return s.Data[i] }, len(s.Data)
	case *pytorch.DoubleStorage:
		at, n = func(i int) float32 { return float32(s.Data[i]) }, len(s.Data)
	default:
		return ckpt.Tensor{}, false, nil
	}
	if len(t.Size) != len(t.Stride) {
		return ckpt.Tensor{}, false, fmt.Errorf("%d sizes and %d strides", len(t.Size), len(t.Stride))
	}
	count, last := 1, t.StorageOffset
	for i, sz := range t.Size {
		if sz < 0 || t.Stride[i] < 0 {
			return ckpt.Tensor{}, false, fmt.Errorf("size %v, stride %v", t.Size, t.Stride)
		}
		if sz == 0 {
			count = 0
			break
		}
		count *= sz
		last += (sz - 1) * t.Stride[i]
	}
	if count > 0 && (t.StorageOffset < 0 || last >= n) {
		return ckpt.Tensor{}, false, fmt.Errorf("size %v, stride %v and offset %d overrun a storage of %d values", t.Size, t.Stride, t.StorageOffset, n)
	}
	data := make([]float32, count)
	idx := make([]int, len(t.Size))
	for k := range data {
		off := t.StorageOffset
		for i, j := range idx {
			off += j * t.Stride[i]
		}
		data[k] = at(off)
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < t.Size[i] {
				break
			}
			idx[i] = 0
		}
	}
	return ckpt.Tensor{Shape: append([]int(nil), t.Size...), Data: data}, true, nil
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
