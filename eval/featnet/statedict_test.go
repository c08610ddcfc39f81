package featnet

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
)

// wrappedPth makes a zip .pth of a dict whose entries are state_dicts of
// the tensors goodTensors names (storage "0" shared), renamed by each
// entry's prefix: torch.save({"params": sd1, "params_ema": sd2}).
func wrappedPth(t *testing.T, entries []string, prefix map[string]string) string {
	p := new(pk).op(0x80, 2, '}', '(')
	for _, e := range entries {
		ts := slices.Clone(goodTensors)
		for i := range ts {
			ts[i].name = prefix[e] + ts[i].name
		}
		body := statePickle(ts, false)
		p.str(e).op(body[2 : len(body)-1]...) // the OrderedDict, without PROTO and STOP
	}
	p.op('u', '.')
	file := makeZip(t, zentry{name: "m/data.pkl", data: p.Bytes()}, zentry{name: "m/data/0", data: floats(1, 2, 3, 4)})
	path := filepath.Join(t.TempDir(), "w.pth")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func names(ts map[string]ckpt.Tensor) []string { return sortedKeys(ts) }

// TestReadStateDictWrapped: the wrappers BasicSR and training scripts
// save are unwrapped (params_ema before params), --key picks another
// entry, DataParallel's module. prefix goes.
func TestReadStateDictWrapped(t *testing.T) {
	path := wrappedPth(t, []string{"params", "params_ema"}, map[string]string{"params": "p.", "params_ema": "module.e."})
	for key, want := range map[string][]string{"": {"e.w", "e.wt"}, "params": {"p.w", "p.wt"}} {
		ts, err := ReadStateDict(path, key)
		if err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		if got := names(ts); !slices.Equal(got, want) {
			t.Errorf("key %q: tensors %v, want %v", key, got, want)
		}
		if w := ts[want[1]]; !slices.Equal(w.Data, []float32{1, 3, 2, 4}) {
			t.Errorf("key %q: %s = %v", key, want[1], w.Data)
		}
	}
	if _, err := ReadStateDict(path, "optimizer"); err == nil || !strings.Contains(err.Error(), `no entry "optimizer"`) || !strings.Contains(err.Error(), `"params_ema"`) {
		t.Errorf("missing key: %v", err)
	}
	other := wrappedPth(t, []string{"net_g"}, nil)
	if _, err := ReadStateDict(other, ""); err == nil || !strings.Contains(err.Error(), "--key") || !strings.Contains(err.Error(), `"net_g"`) {
		t.Errorf("unknown wrapper: %v", err)
	}
	if ts, err := ReadStateDict(other, "net_g"); err != nil || len(ts) != 2 {
		t.Errorf("--key net_g: %v, %v", names(ts), err)
	}
}

// TestReadStateDictRefusesCode: a pickle naming os.system is refused, and
// the bare state_dicts of testdata read as readPth reads them.
func TestReadStateDictRefusesCode(t *testing.T) {
	p := new(pk).op(0x80, 2).global("os", "system").str("echo hi").op(0x85, 'R', '.')
	path := filepath.Join(t.TempDir(), "evil.pth")
	if err := os.WriteFile(path, makeZip(t, zentry{name: "m/data.pkl", data: p.Bytes()}), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStateDict(path, ""); err == nil || !strings.Contains(err.Error(), "runs no code") {
		t.Errorf("os.system: %v", err)
	}
	for _, f := range []string{"small_zip.pth", "small_legacy.pth"} {
		ts, err := ReadStateDict(filepath.Join("testdata", f), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ts["bn.num_batches_tracked"]; ok || len(ts) != 5 {
			t.Errorf("%s: %v", f, names(ts))
		}
	}
}

// TestReadStateDictSafetensors: in a safetensors file, key selects the
// tensors under "key." and module. goes; a key no tensor has is an error.
func TestReadStateDictSafetensors(t *testing.T) {
	c := ckpt.New()
	for _, n := range []string{"params_ema.module.a", "params_ema.module.b", "params.module.a"} {
		c.Tensors[n] = ckpt.Tensor{Shape: []int{1}, Data: []float32{1}}
	}
	c.Tensors["params_ema.module.n.num_batches_tracked"] = ckpt.Tensor{Shape: []int{1}, Data: []float32{3}}
	path := filepath.Join(t.TempDir(), "w.safetensors")
	if err := ckpt.Save(path, c); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadStateDict(path, "params_ema")
	if err != nil || !slices.Equal(names(ts), []string{"a", "b"}) {
		t.Errorf("key params_ema: %v, %v", names(ts), err)
	}
	if _, err := ReadStateDict(path, "net_g"); err == nil || !strings.Contains(err.Error(), `no tensor is named "net_g.…"`) {
		t.Errorf("key net_g: %v", err)
	}
}
