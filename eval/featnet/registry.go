package featnet

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A Network is a registered feature network, as Load names it.
type Network struct {
	// Name is the network's name in a spec: "lenet-mnist", or the part
	// before the colon of "inception:FILE".
	Name string
	// File is true for a network whose weights are read from the file
	// named after a colon (spec "name:FILE"), false for one that needs
	// nothing (spec "name").
	File bool
	// Open returns the network, with its weights read from file if File
	// ("" otherwise).
	Open func(file string) (Extractor, error)
}

// The registry is written by init functions only (as image.RegisterFormat
// is), then read.
var registry struct {
	sync.RWMutex
	nets map[string]Network
}

// Register adds a feature network that Load then opens by name. It
// panics if the name is taken or malformed, or Open is nil: those are
// programming errors, found when the program starts.
func Register(n Network) {
	registry.Lock()
	defer registry.Unlock()
	switch {
	case n.Name == "" || strings.ContainsAny(n.Name, " ,:"):
		panic(fmt.Sprintf("featnet: Register: bad network name %q", n.Name))
	case n.Open == nil:
		panic(fmt.Sprintf("featnet: Register %s: Open is required", n.Name))
	}
	if registry.nets == nil {
		registry.nets = map[string]Network{}
	}
	if _, dup := registry.nets[n.Name]; dup {
		panic(fmt.Sprintf("featnet: Register: network %q registered twice", n.Name))
	}
	registry.nets[n.Name] = n
}

// Networks returns the names of the registered feature networks, sorted.
func Networks() []string {
	registry.RLock()
	defer registry.RUnlock()
	ns := make([]string, 0, len(registry.nets))
	for n := range registry.nets {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// Load returns the feature network spec names: a registered Network,
// by its name alone or, for one that reads its weights from a file, as
// "name:FILE". Registered here are
//
//   - "lenet-mnist", "lenet-fashion": the LeNet-5 networks shipped with
//     positgan, trained on MNIST and Fashion-MNIST (see ShippedLeNet);
//   - "lenet:FILE": a LeNet written by LeNet.Save (positgan lenet train);
//   - "inception:FILE": the FID Inception-v3 with weights from FILE,
//     pytorch-fid's pt_inception-2015-12-05-6726825d.pth or a
//     safetensors conversion (see LoadInception), images preprocessed as
//     pytorch-fid does;
//   - "inception-clean:FILE": the same network with clean-fid's "clean"
//     preprocessing (see Inception.CleanFID).
func Load(spec string) (Extractor, error) {
	name, file, hasFile := strings.Cut(spec, ":")
	registry.RLock()
	n, ok := registry.nets[name]
	registry.RUnlock()
	if !ok || n.File != hasFile {
		return nil, fmt.Errorf("featnet: unknown feature network %q (want %s)", spec, Specs)
	}
	return n.Open(file)
}

// The networks of this package.
func init() {
	for _, s := range shipped {
		Register(Network{Name: s.spec, Open: func(string) (Extractor, error) {
			l, err := ShippedLeNet(s.spec)
			if err != nil {
				return nil, err
			}
			return l.Extractor(), nil
		}})
	}
	Register(Network{Name: "lenet", File: true, Open: func(file string) (Extractor, error) {
		l, err := LoadLeNet(file)
		if err != nil {
			return nil, err
		}
		return l.Extractor(), nil
	}})
	Register(Network{Name: "inception", File: true, Open: func(file string) (Extractor, error) {
		m, err := LoadInception(file)
		if err != nil {
			return nil, err // not a nil *Inception in a non-nil Extractor
		}
		return m, nil
	}})
	Register(Network{Name: "inception-clean", File: true, Open: func(file string) (Extractor, error) {
		m, err := LoadInception(file)
		if err != nil {
			return nil, err
		}
		return m.CleanFID(), nil
	}})
}
