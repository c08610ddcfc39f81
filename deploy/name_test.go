package deploy_test

import (
	"math"
	"strings"
	"testing"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/models"
)

// A tensor name from a file is printed in errors: an over-long or
// unprintable one is refused with a short, quoted message (issue 29
// item 14).
func TestLoadRefusesBadNames(t *testing.T) {
	cfg := models.Config{Arch: models.CGAN, ZDim: 2, Classes: 2, Channels: 1, Height: 2, Width: 2, Features: 1}
	m, err := deploy.Export(trained(t, cfg, ""), mustPolicy(t, "posit6-deploy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{strings.Repeat("G/", 30000) + "w", "G/fc1.w\x00\nrm -rf", "bad\xffutf8"} {
		m.Tensors[0].Name = name
		b, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		_, err = deploy.Parse(b)
		if err == nil || !strings.Contains(err.Error(), "is not a tensor name") || len(err.Error()) > 200 || strings.ContainsAny(err.Error(), "\x00\n") {
			t.Errorf("name of %d bytes: Parse = %.300v", len(name), err)
		}
	}
}

// A .pgmodel whose tensors hold NaN (or NaR) is refused when read,
// not run into an all-black grid (issue 29 item 7).
func TestLoadRefusesNonFinite(t *testing.T) {
	cfg := models.Config{Arch: models.CGAN, ZDim: 2, Classes: 2, Channels: 1, Height: 2, Width: 2, Features: 1}
	for _, policy := range []string{"", "posit6-deploy"} {
		c := trained(t, cfg, "")
		var m *deploy.Model
		var err error
		if policy == "" {
			m, err = deploy.Export(c, nil)
		} else {
			m, err = deploy.Export(c, mustPolicy(t, policy))
		}
		if err != nil {
			t.Fatal(err)
		}
		tn := &m.Tensors[0]
		if policy == "" {
			tn.Codes[0] = math.Float32bits(float32(math.NaN()))
		} else {
			tn.Codes[0] = tn.Format.Encode(float32(math.NaN())) // NaR
		}
		b, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := deploy.Parse(b); err == nil || !strings.Contains(err.Error(), "not a trained network") {
			t.Errorf("%q: Parse of a NaN weight = %v", policy, err)
		}
	}
}

// FileName keeps names inside their folder and takes out what Windows
// refuses in a file name (a sparse deploy-compare row is "P6 2:4").
func TestFileName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"G/fc1.w", "G_fc1.w"},
		{"P6 2:4", "P6_2_4"},
		{"G/conv#3.b", "G_conv_3.b"},
		{`a\b*c?d"e<f>g|h`, "a_b_c_d_e_f_g_h"},
		{"../../x", ".._.._x"},
		{"posit(8,1)+", "posit(8,1)+"},
	} {
		if got := deploy.FileName(c.in); got != c.want {
			t.Errorf("FileName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
