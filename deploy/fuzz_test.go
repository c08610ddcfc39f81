package deploy_test

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/sparsity"
)

// FuzzLoad feeds the reader arbitrary bytes: it must return a model or an
// error, never panic or allocate without bound, and a model it returns
// must write back to a file that reads as the same model. The seed corpus
// (testdata/fuzz/FuzzLoad) holds tiny CGAN and DCGAN files, dense
// (version 1) and N:M sparse (version 2), damaged ones and ones of other
// versions; regenerate it with PGMODEL_FUZZ_CORPUS=1.
func FuzzLoad(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data)
		// Past the checksum: the same bytes with a length and checksum
		// that match, so that the fuzzer reaches the record parser.
		if len(data) >= 36 {
			d := slices.Clone(data)
			binary.LittleEndian.PutUint64(d[16:], uint64(len(d)))
			binary.LittleEndian.PutUint32(d[len(d)-4:], crc32.ChecksumIEEE(d[:len(d)-4]))
			check(t, d)
		}
	})
}

func check(t *testing.T, data []byte) {
	m, err := deploy.Parse(data)
	if err != nil {
		return
	}
	{
		b, err := m.Bytes()
		if err != nil {
			t.Fatalf("a model read from a file does not write: %v", err)
		}
		m2, err := deploy.Parse(b)
		if err != nil {
			t.Fatalf("a model written back does not read: %v", err)
		}
		for i := range m.Tensors {
			if !slices.Equal(m.Tensors[i].Codes, m2.Tensors[i].Codes) || m.Tensors[i].Sparse != m2.Tensors[i].Sparse {
				t.Fatalf("tensor %s changed in the round trip", m.Tensors[i].Name)
			}
		}
	}
}

// TestWriteFuzzCorpus writes the seed corpus when PGMODEL_FUZZ_CORPUS is set.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("PGMODEL_FUZZ_CORPUS") == "" {
		t.Skip("set PGMODEL_FUZZ_CORPUS=1 to regenerate testdata/fuzz/FuzzLoad")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := map[string][]byte{}
	for _, cfg := range []models.Config{
		{Arch: models.CGAN, ZDim: 2, Classes: 2, Channels: 1, Height: 2, Width: 2, Features: 1},
		{Arch: models.DCGAN, ZDim: 2, Channels: 1, Height: 8, Width: 8, Features: 1},
	} {
		c := trained(t, cfg, "")
		m, err := deploy.Export(c, mustPolicy(t, "posit6-deploy"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		seeds[cfg.Arch] = b
		seeds[cfg.Arch+"-truncated"] = b[:len(b)/2]
		seeds[cfg.Arch+"-version2"] = withVersion(b, 2)
		seeds[cfg.Arch+"-version3"] = withVersion(b, 3)
		flipped := slices.Clone(b)
		flipped[len(b)/3] ^= 4
		seeds[cfg.Arch+"-flipped"] = flipped
		for _, nm := range [][2]int{{2, 4}, {1, 3}} {
			m, err := deploy.Export(c, mustPolicy(t, "posit6-deploy"), deploy.Sparsify(sparsity.Pattern{N: nm[0], M: nm[1]}, nil))
			if err != nil {
				t.Fatal(err)
			}
			b, err := m.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s-sparse%dof%d", cfg.Arch, nm[0], nm[1])
			seeds[name] = b
			seeds[name+"-truncated"] = b[:len(b)*2/3]
			seeds[name+"-version1"] = withVersion(b, 1)
		}
	}
	for name, b := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
