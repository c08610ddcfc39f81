package featnet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/internal/regfile"
)

// stateDictWrappers returns the entries a checkpoint that is not a bare
// state_dict keeps its network's tensors under, in order of preference:
// BasicSR and Real-ESRGAN save {"params_ema": ..., "params": ...} (the
// exponential moving average is the better network), training scripts
// {"state_dict": ...} or {"model": ...}.
func stateDictWrappers() []string { return []string{"params_ema", "params", "state_dict", "model"} }

// ReadStateDict reads the float tensors of a PyTorch state_dict from a
// torch.save file (zip or legacy format) or a safetensors file, as
// contiguous float32 tensors by name.
//
// A torch.save file may hold the state_dict itself or a dict wrapping
// it: key names the entry to read; with key "" the entry is the first of
// params_ema, params, state_dict and model that the file has. In a
// safetensors file key selects the tensors named "key.…". DataParallel's
// "module." prefix is removed when every name has it. Integer tensors
// (num_batches_tracked) are left out.
//
// Pickles are read as readPth reads them: by positgan's own reader, which
// runs no code and checks every size against the file and the limits
// of docs/reliability.md before allocating.
func ReadStateDict(path, key string) (map[string]ckpt.Tensor, error) {
	st, err := isSafetensors(path)
	if err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	var ts map[string]ckpt.Tensor
	if st {
		ts, err = readSafetensors(path, func(name string) bool {
			return strings.HasSuffix(name, "num_batches_tracked") || key != "" && !strings.HasPrefix(name, key+".")
		})
		if err != nil {
			return nil, err
		}
		if key != "" {
			if len(ts) == 0 {
				return nil, fmt.Errorf("featnet: %s: no tensor is named %q", path, shortName(key)+".…")
			}
			ts = trimPrefix(ts, key+".")
		}
	} else {
		ts, err = readPthStateDict(path, key)
		if err != nil {
			return nil, err
		}
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("featnet: %s: the state dict holds no float tensors", path)
	}
	return trimPrefix(ts, "module."), nil
}

// readPthStateDict reads the state_dict a torch.save file holds, or
// wraps under key (see ReadStateDict).
func readPthStateDict(path, key string) (map[string]ckpt.Tensor, error) {
	f, fi, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("featnet: %w", err)
	}
	defer f.Close()
	obj, err := readPthObject(f, fi.Size())
	if err == nil {
		obj, err = unwrapStateDict(obj, key)
	}
	var ts map[string]ckpt.Tensor
	if err == nil {
		ts, err = pthStateDict(obj, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("featnet: %s: %w", path, err)
	}
	return ts, nil
}

// unwrapStateDict returns the state_dict in obj: obj itself if it holds
// tensors, else its entry key or, with key "", its first wrapper entry.
func unwrapStateDict(obj any, key string) (any, error) {
	d, ok := obj.(*pyDict)
	if !ok {
		return nil, fmt.Errorf("holds a %s, want a state_dict (torch.save(model.state_dict()))", pyType(obj))
	}
	if key != "" {
		v, ok := d.get(key)
		if !ok {
			return nil, fmt.Errorf("no entry %q (it has %s)", shortName(key), entryNames(d))
		}
		if _, ok := v.(*pyDict); !ok {
			return nil, fmt.Errorf("entry %q is a %s, not a state_dict", shortName(key), pyType(v))
		}
		return v, nil
	}
	if slices.ContainsFunc(d.vals, func(v any) bool { _, ok := v.(*pthTensor); return ok }) {
		return d, nil
	}
	for _, w := range stateDictWrappers() {
		if v, ok := d.get(w); ok {
			if _, ok := v.(*pyDict); ok {
				return v, nil
			}
		}
	}
	return nil, fmt.Errorf("holds neither tensors nor an entry %s; name the entry with --key (it has %s)",
		strings.Join(stateDictWrappers(), ", "), entryNames(d))
}

// entryNames lists a dict's string keys for an error message, at most
// ten of them, each cut short.
func entryNames(d *pyDict) string {
	var names []string
	for _, k := range d.keys {
		if s, ok := k.(string); ok {
			if len(names) == 10 {
				names = append(names, "…")
				break
			}
			names = append(names, fmt.Sprintf("%q", shortName(s)))
		}
	}
	if len(names) == 0 {
		return "no named entries"
	}
	return strings.Join(names, ", ")
}

// trimPrefix returns ts with prefix removed from the names, if every name
// has it; otherwise ts.
func trimPrefix(ts map[string]ckpt.Tensor, prefix string) map[string]ckpt.Tensor {
	for name := range ts {
		if !strings.HasPrefix(name, prefix) {
			return ts
		}
	}
	out := make(map[string]ckpt.Tensor, len(ts))
	for name, t := range ts {
		out[strings.TrimPrefix(name, prefix)] = t
	}
	return out
}
