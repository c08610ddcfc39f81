package models

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
)

func TestWithOptions(t *testing.T) {
	esr := tinyESRGAN(t, "1")
	dc, err := DefaultConfig(DCGAN, datasets.Shape{C: 1, H: 28, W: 28}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cg, err := DefaultConfig(CGAN, datasets.Shape{C: 1, H: 28, W: 28}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		cfg     Config
		opts    map[string]string
		unknown string   // the key an *OptionError names
		known   []string // the keys it lists
		bad     bool     // a value Check rejects
	}{
		{name: "set", cfg: esr, opts: map[string]string{"pretrain": "7", "blocks": "2"}},
		{name: "none", cfg: esr},
		{name: "unknown", cfg: esr, opts: map[string]string{"pretrain": "7", "bloks": "2"}, unknown: "bloks",
			known: []string{"blocks", "gan_weight", "gc", "pixel_weight", "pretrain", "scale"}},
		{name: "no options", cfg: cg, opts: map[string]string{"blocks": "2"}, unknown: "blocks"},
		{name: "dcgan g_features", cfg: dc, opts: map[string]string{"g_features": "128"}},
		{name: "dcgan g_features zero", cfg: dc, opts: map[string]string{"g_features": "0"}, bad: true},
		{name: "bad value", cfg: esr, opts: map[string]string{"scale": "3"}, bad: true},
		{name: "not a number", cfg: esr, opts: map[string]string{"gan_weight": "x"}, bad: true},
	} {
		before := tc.cfg.Options["pretrain"]
		got, err := tc.cfg.WithOptions(tc.opts)
		var oe *OptionError
		switch {
		case tc.unknown != "":
			if !errors.As(err, &oe) || oe.Key != tc.unknown || !slices.Equal(oe.Known, tc.known) || !strings.Contains(err.Error(), tc.unknown) {
				t.Errorf("%s: error %v, want an OptionError for %s listing %v", tc.name, err, tc.unknown, tc.known)
			}
		case tc.bad:
			if err == nil || errors.As(err, &oe) {
				t.Errorf("%s: error %v, want a bad value", tc.name, err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		default:
			for k, v := range tc.opts {
				if got.Options[k] != v {
					t.Errorf("%s: option %s = %q, want %q", tc.name, k, got.Options[k], v)
				}
			}
			if tc.cfg.Arch == ESRGAN && got.Options["scale"] != "2" {
				t.Errorf("%s: the other options were lost: %v", tc.name, got.Options)
			}
		}
		if tc.cfg.Options["pretrain"] != before {
			t.Errorf("%s: WithOptions modified its receiver's options", tc.name)
		}
	}
}

// Every option a registered model declares is one it reads: setting it
// to a value of the wrong type is an error.
func TestDeclaredOptionsAreRead(t *testing.T) {
	for _, name := range Names() {
		s, _ := Lookup(name)
		for _, k := range s.OptionNames() {
			cfg := tinyESRGAN(t, "1")
			if name != ESRGAN {
				cfg = s.Default(datasets.Shape{C: 3, H: 64, W: 64}, 0)
				cfg.Arch = name
			}
			if _, err := cfg.WithOptions(map[string]string{k: "not-a-number"}); err == nil {
				t.Errorf("%s: option %s=not-a-number accepted: is it read?", name, k)
			}
		}
	}
}
