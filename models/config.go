package models

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/tanhapprox"
)

// Config describes a model: the registered model it is (Arch) and its
// sizes. It is stored in checkpoints as JSON. Fields a model does not use
// stay zero; settings only one model has go in Options.
type Config struct {
	Arch     string `json:"arch"` // the registered model's name
	ZDim     int    `json:"z_dim,omitempty"`
	Classes  int    `json:"classes"` // conditional on this many classes; 0 if unconditional
	Channels int    `json:"channels"`
	Height   int    `json:"height"`
	Width    int    `json:"width"`
	Features int    `json:"features"` // the width unit of the networks
	// Tanh is the generator's output activation: "" the exact tanh,
	// otherwise an approximation as tanhapprox.Parse reads it
	// ("bitwise-corrected:posit(16,0)", "pwl:3"), from the policy
	// (policy.Policy.Tanh). Its backward pass uses 1-y² at the
	// approximate output y, as the posit GAN work does.
	Tanh string `json:"tanh,omitempty"`
	// Options holds model-specific settings by name ("blocks": "9").
	Options map[string]string `json:"options,omitempty"`
}

// Upper bounds of a Config's sizes. They are sanity limits, so that a
// corrupt or crafted checkpoint (or a typo in a flag) gives an error
// instead of an attempt to allocate terabytes; models may set tighter
// ones in their own Check.
const (
	MaxSide       = 1024    // image height and width
	MaxFeatures   = 1024    // the width unit F
	MaxZDim       = 4096    // noise size
	MaxClasses    = 10000   // conditional classes
	MaxFeatureMap = 1 << 26 // Features × Channels × Height × Width
)

// ImageSize returns the number of values of one image, C·H·W.
func (c Config) ImageSize() int { return c.Channels * c.Height * c.Width }

// Int returns the integer option key, or def if it is not set.
func (c Config) Int(key string, def int) (int, error) {
	s, ok := c.Options[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("models: %s: option %s=%q is not an integer", c.Arch, key, s)
	}
	return v, nil
}

// Check reports whether the configuration can be built: the common checks,
// then the registered model's.
func (c Config) Check() error {
	spec, err := Lookup(c.Arch)
	if err != nil {
		return err
	}
	switch {
	case c.Channels != 1 && c.Channels != 3:
		return fmt.Errorf("models: %s: %d channels, want 1 or 3", c.Arch, c.Channels)
	case c.Height <= 0 || c.Width <= 0:
		return fmt.Errorf("models: %s: image size %dx%d must be positive", c.Arch, c.Height, c.Width)
	case c.Features <= 0:
		return fmt.Errorf("models: %s: features %d must be positive", c.Arch, c.Features)
	case c.Classes < 0:
		return fmt.Errorf("models: %s: %d classes", c.Arch, c.Classes)
	case c.Height > MaxSide || c.Width > MaxSide:
		return fmt.Errorf("models: %s: image size %dx%d exceeds the limit %d", c.Arch, c.Height, c.Width, MaxSide)
	case c.Features > MaxFeatures:
		return fmt.Errorf("models: %s: features %d exceeds the limit %d", c.Arch, c.Features, MaxFeatures)
	case c.ZDim < 0 || c.ZDim > MaxZDim:
		return fmt.Errorf("models: %s: z size %d outside [0, %d]", c.Arch, c.ZDim, MaxZDim)
	case c.Classes > MaxClasses:
		return fmt.Errorf("models: %s: %d classes exceed the limit %d", c.Arch, c.Classes, MaxClasses)
	case c.Features*c.ImageSize() > MaxFeatureMap:
		return fmt.Errorf("models: %s: features %d × image %dx%dx%d exceeds the limit %d", c.Arch, c.Features, c.Channels, c.Height, c.Width, MaxFeatureMap)
	}
	if c.Tanh != "" {
		if _, err := tanhapprox.Parse(tanhapprox.Tanh, c.Tanh); err != nil {
			return fmt.Errorf("models: output activation: %w", err)
		}
	}
	if spec.Check != nil {
		return spec.Check(c)
	}
	return nil
}

// WithPolicy returns c with the generator output activation policy p asks
// for (policy.Policy.Tanh); a nil p keeps c's.
func (c Config) WithPolicy(p *policy.Policy) Config {
	if p != nil {
		c.Tanh = p.Tanh
	}
	return c
}

// String returns the configuration as JSON.
func (c Config) String() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// ParseConfig parses the JSON String returns and checks it.
func ParseConfig(s string) (Config, error) {
	var c Config
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return c, fmt.Errorf("models: config: %w", err)
	}
	return c, c.Check()
}
