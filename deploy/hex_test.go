package deploy_test

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/quant"
)

// readHex reads a $readmemh file: one hex code per line after // comments.
func readHex(t *testing.T, path string) []uint32 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var codes []uint32
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "//") {
			continue
		}
		v, err := strconv.ParseUint(line, 16, 32)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		codes = append(codes, uint32(v))
	}
	return codes
}

// The memory files hold the stored codes; the golden vectors are the run's
// values; and the first layer's output codes follow by hand from its input
// and weight codes: with quire accumulation, out = Out(Out(Σ a·w) + b).
func TestWriteHex(t *testing.T) {
	c := trained(t, cgan, "")
	m, err := deploy.Export(c, mustPolicy(t, "posit6-deploy-quire"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	z, _ := noise(m.Spec(), 1)
	if err := m.WriteHex(dir, z, 1); err != nil {
		t.Fatal(err)
	}
	var man struct {
		Files []deploy.HexFile
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	hex := map[string][]uint32{}
	for _, f := range man.Files {
		hex[f.Tensor] = readHex(t, filepath.Join(dir, f.File))
	}
	for _, tn := range m.Tensors {
		if !slices.Equal(hex[tn.Name], tn.Codes) {
			t.Errorf("%s: memory file differs from the stored codes", tn.Name)
		}
	}
	img, err := m.Generate(z, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range img {
		if hex["output"][i] != math.Float32bits(v) {
			t.Fatalf("golden output %d: %08x, Generate %08x", i, hex["output"][i], math.Float32bits(v))
		}
	}
	p6, p16 := quant.MustParse("posit(6,1)"), quant.MustParse("posit(16,1)")
	in, out := hex["G/fc1.in"], hex["G/fc1.out"]
	w, bias := m.Tensor("G/fc1.w"), m.Tensor("G/fc1.b").Values()
	nIn := len(in)
	if nIn != cgan.ZDim+cgan.Classes || len(out) != cgan.Features {
		t.Fatalf("G/fc1: %d inputs, %d outputs", nIn, len(out))
	}
	for i := 0; i < nIn; i++ { // the input is z then the one-hot label, in posit(6,1)
		want := float32(0)
		if i < cgan.ZDim {
			want = z[i]
		} else if i == cgan.ZDim+1 {
			want = 1
		}
		if in[i] != p6.Encode(want) {
			t.Errorf("G/fc1 input %d: code %02x, want %02x", i, in[i], p6.Encode(want))
		}
	}
	for o := range out {
		var s float64 // products of posit(6,1) values and their sum are exact in float64
		for i := 0; i < nIn; i++ {
			s += p6.Decode(in[i]) * p6.Decode(w.Codes[o*nIn+i])
		}
		y := p16.Round(float32(p16.Round64(s)) + bias[o])
		if out[o] != p16.Encode(y) {
			t.Errorf("G/fc1 output %d: code %04x, by hand %04x", o, out[o], p16.Encode(y))
		}
	}
}
