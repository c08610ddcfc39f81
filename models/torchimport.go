package models

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gorgonia.org/gorgonia"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/eval/featnet"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/nn"
)

// A TorchArch is a PyTorch network that positgan import reads: the
// registered model that runs it exactly, how its sizes follow from the
// state dict's shapes, and which state-dict key holds each of the
// model's tensors. A model file registers it with RegisterTorch from its
// init function, next to the model it maps onto.
type TorchArch struct {
	Name    string // as positgan import --arch names it, e.g. "dcgan"
	Summary string // one line for --help: the network and its source
	// Config returns the model configuration of the network whose
	// state dict is sd (its Arch a registered model), read from the
	// tensors' shapes, or an error naming the first key that is missing
	// or has a shape the network cannot have.
	Config func(sd map[string]ckpt.Tensor) (Config, error)
	// Key returns the state-dict key of the parameter or buffer named
	// name of the model of configuration c ("G/deconv1.w" is
	// "main.0.weight").
	Key func(c Config, name string) string
	// Ignore, if not nil, reports the state-dict keys the network has
	// but does not use (as PyTorch does not), which import leaves out
	// instead of refusing them.
	Ignore func(key string) bool
}

// torchArchs is written by init functions only, then read (as the model
// registry is).
var torchArchs = map[string]TorchArch{}

// RegisterTorch adds a PyTorch network positgan import reads. It panics
// if the name is taken or the TorchArch is incomplete.
func RegisterTorch(a TorchArch) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := torchArchs[a.Name]; dup || a.Name == "" || a.Config == nil || a.Key == nil {
		panic(fmt.Sprintf("models: RegisterTorch: %q is taken or incomplete", a.Name))
	}
	torchArchs[a.Name] = a
}

// TorchArchs returns the names of the PyTorch networks import reads, in
// order.
func TorchArchs() []string {
	registry.RLock()
	defer registry.RUnlock()
	return slices.Sorted(maps.Keys(torchArchs))
}

// LookupTorch returns the PyTorch network called name.
func LookupTorch(name string) (TorchArch, error) {
	registry.RLock()
	defer registry.RUnlock()
	a, ok := torchArchs[name]
	if !ok {
		return a, fmt.Errorf("models: unknown PyTorch architecture %q (known: %s)", name, strings.Join(slices.Sorted(maps.Keys(torchArchs)), ", "))
	}
	return a, nil
}

// MetaImport is the checkpoint metadata key naming what import read.
const MetaImport = "positgan.import"

// ImportTorch reads the PyTorch state dict in the file at path (a
// torch.save file or safetensors; key picks a wrapped entry, see
// featnet.ReadStateDict) as the network arch names, and returns a
// checkpoint of the model that runs it: Load and gan.Load read it as they
// read a trained model's, in fp32 unless a policy is given.
//
// The state dict must be exactly that network: a key the model needs
// that is missing or has another shape is an error naming the first such
// key and what was expected, and so is a float tensor the model would
// not use (a bias the network does not have, an extra layer), since
// running without it would approximate the network rather than run it.
// Integer buffers (num_batches_tracked) are ignored.
func ImportTorch(arch, path, key string) (*ckpt.Checkpoint, error) {
	a, err := LookupTorch(arch)
	if err != nil {
		return nil, err
	}
	sd, err := featnet.ReadStateDict(path, key)
	if err != nil {
		return nil, err
	}
	c, err := importStateDict(a, sd)
	if err != nil {
		return nil, fmt.Errorf("models: import %s from %s: %w", arch, path, err)
	}
	c.Meta[MetaImport] = fmt.Sprintf("PyTorch %s state dict %s", arch, filepath.Base(path))
	return c, nil
}

// importStateDict maps sd onto the model a describes.
func importStateDict(a TorchArch, sd map[string]ckpt.Tensor) (*ckpt.Checkpoint, error) {
	cfg, err := a.Config(sd)
	if err != nil {
		return nil, err
	}
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	// The networks are built only to list their tensors' names and
	// shapes, in the order the model applies its layers.
	s := nn.NewScope(gorgonia.NewGraph(), func(string) nn.LayerFormats { return nn.LayerFormats{} }, 0)
	gs, err := m.Build(s)
	if err == nil {
		err = s.Err()
	}
	if err != nil {
		return nil, err
	}
	type want struct {
		name  string
		shape []int
	}
	var ws []want
	for _, g := range gs {
		for _, p := range g.Net.Params() {
			ws = append(ws, want{p.Name, p.Node.Shape().Clone()})
		}
		for _, b := range g.Net.Buffers() {
			ws = append(ws, want{b.Name, b.Tensor.Shape().Clone()})
		}
	}
	c := ckpt.New()
	used := map[string]bool{}
	for _, w := range ws {
		k := a.Key(cfg, w.name)
		t, ok := sd[k]
		switch {
		case !ok:
			return nil, fmt.Errorf("the state dict has no %q (want a tensor of shape %s)", k, shapeText(w.shape))
		case !slices.Equal(t.Shape, w.shape):
			return nil, fmt.Errorf("%q has shape %s, want %s", k, shapeText(t.Shape), shapeText(w.shape))
		}
		for _, v := range t.Data {
			if v-v != 0 {
				return nil, fmt.Errorf("%q holds %v: not a trained network", k, v)
			}
		}
		used[k] = true
		c.Tensors[w.name] = ckpt.Tensor{Shape: w.shape, Data: t.Data}
	}
	for _, k := range slices.Sorted(maps.Keys(sd)) {
		if !used[k] && (a.Ignore == nil || !a.Ignore(k)) {
			return nil, fmt.Errorf("%q is not a tensor of this network (another variant or architecture? positgan runs networks exactly or not at all)", k)
		}
	}
	st, err := json.Marshal(importState{Model: json.RawMessage(cfg.String()), Batch: 1, AdamT: map[string]int{}, Scalers: map[string]struct{}{}})
	if err != nil {
		return nil, err
	}
	c.Meta[gan.MetaState] = string(st)
	c.Meta[gan.MetaModel] = cfg.String()
	return c, nil
}

// importState is the run state (gan's checkpoint metadata) of an
// imported network: step 0 of no run, which gan.ReadState accepts and
// gan.Load needs no more of.
type importState struct {
	Model   json.RawMessage     `json:"model"`
	Batch   int                 `json:"batch"`
	Step    int                 `json:"step"`
	AdamT   map[string]int      `json:"adam_t"`
	Scalers map[string]struct{} `json:"loss_scalers"`
}

// shapeText writes a shape as PyTorch's torch.Size prints it: (8, 4, 4, 4).
func shapeText(sh []int) string {
	parts := make([]string, len(sh))
	for i, d := range sh {
		parts[i] = strconv.Itoa(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
