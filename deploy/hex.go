package deploy

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/positgan/positgan/internal/atomicfile"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// HexFile is one memory file WriteHex wrote, as manifest.json lists it.
type HexFile struct {
	File   string `json:"file"`   // relative to the folder, e.g. "tensors/G_fc1.w.hex"
	Tensor string `json:"tensor"` // a stored tensor, or golden/<layer>.in, .out, input.z, output
	Format string `json:"format"` // the codes' format (fp32: IEEE binary32 bits)
	Bits   int    `json:"bits"`
	Shape  []int  `json:"shape"`
	// Sparse tensors have two memories: Memory "values" holds the kept
	// codes (Format, Bits) and "indices" their in-block indices, one
	// block a line (Format "index", Bits = N·IndexBits); Sparsity is "N:M".
	// Both are "" for a dense tensor's one memory.
	Memory   string `json:"memory,omitempty"`
	Sparsity string `json:"sparsity,omitempty"`
}

// WriteHex writes to dir, for RTL simulation: every stored tensor's codes
// as a $readmemh memory file (tensors/), and golden vectors of one run on
// the latent vector z and label (-1 for an unconditional generator): the
// input, each quantized layer's input in its activation format and output
// in its output format, and the image (golden/). One code per line in
// ceil(bits/4) hex digits, after // comment lines; manifest.json lists
// the files. Each file is written atomically.
func (m *Model) WriteHex(dir string, z []float32, label int) error {
	var labels []int
	if m.Meta.Classes > 0 {
		labels = []int{label}
	}
	byLayer := map[string]nn.LayerFormats{}
	for _, l := range m.Meta.Layers {
		lf, err := l.Formats()
		if err != nil {
			return fmt.Errorf("deploy: %w", err)
		}
		byLayer[l.Name] = lf
	}
	var files []HexFile
	var werr error
	write := func(file, tensor string, f quant.Format, shape []int, codes []uint32) {
		if werr != nil {
			return
		}
		files = append(files, HexFile{File: file, Tensor: tensor, Format: f.String(), Bits: f.Bits(), Shape: shape})
		werr = writeHexFile(filepath.Join(dir, file), tensor, f, shape, codes)
	}
	encodeAll := func(f quant.Format, v []float32) []uint32 {
		c := make([]uint32, len(v))
		for i, x := range v {
			c[i] = encode1(f, x)
		}
		return c
	}
	for _, d := range []string{"tensors", "golden"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("deploy: %w", err)
		}
	}
	for _, t := range m.Tensors {
		if t.Sparse.Dense() {
			write("tensors/"+FileName(t.Name)+".hex", t.Name, t.Format, t.Shape, t.Codes)
			continue
		}
		if werr == nil {
			var fs []HexFile
			fs, werr = writeSparseHex(dir, &t)
			files = append(files, fs...)
		}
	}
	write("golden/input.z.hex", "input.z", quant.FP32, append([]int{1}, m.Meta.Z...), encodeAll(quant.FP32, z))
	if labels != nil {
		write("golden/input.label.hex", "input.label", quant.MustParse("fixed(32,0)"), []int{1}, []uint32{uint32(label)})
	}
	seen := map[string]int{}
	img, err := m.forward(z, labels, func(taps []nn.Tap) {
		for _, tp := range taps {
			lf := byLayer[tp.Layer]
			name := tp.Layer
			if k := seen[name]; k > 0 {
				name = fmt.Sprintf("%s#%d", name, k)
			}
			seen[tp.Layer]++
			in, out := tp.In.Value().Data().([]float32), tp.Out.Value().Data().([]float32)
			fa, fo := orFP32(lf.Act.Format), orFP32(lf.Out.Format)
			write("golden/"+FileName(name)+".in.hex", name+".in", fa, tp.In.Shape().Clone(), encodeAll(fa, in))
			write("golden/"+FileName(name)+".out.hex", name+".out", fo, tp.Out.Shape().Clone(), encodeAll(fo, out))
		}
	})
	if err != nil {
		return err
	}
	im := m.Meta.Image
	write("golden/output.hex", "output", quant.FP32, []int{1, im[0], im[1], im[2]}, encodeAll(quant.FP32, img))
	if werr != nil {
		return werr
	}
	js, err := json.MarshalIndent(struct {
		Model string    `json:"model"`
		Label int       `json:"label"`
		Files []HexFile `json:"files"`
	}{m.Meta.Model.String(), label, files}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "manifest.json"), append(js, '\n'))
}

// FileName turns a tensor, layer or table-row name into a file name that
// every common file system takes: "G/fc1.w" → "G_fc1.w", "P6 2:4" →
// "P6_2_4". Separators, spaces and the characters Windows reserves become
// underscores, so a name never reaches outside its folder.
func FileName(s string) string { return fileNameReplacer.Replace(s) }

var fileNameReplacer = strings.NewReplacer("/", "_", "\\", "_", "#", "_", " ", "_", ":", "_", "*", "_", "?", "_",
	"\"", "_", "<", "_", ">", "_", "|", "_")

func writeHexFile(path, name string, f quant.Format, shape []int, codes []uint32) error {
	digits := (f.Bits() + 3) / 4
	return atomicfile.Write(path, func(w io.Writer) error {
		what := "codes"
		if len(codes) == 1 {
			what = "code"
		}
		if _, err := fmt.Fprintf(w, "// %s: %d %s of %v (%d bits), shape %v, row-major\n", name, len(codes), what, f, f.Bits(), shape); err != nil {
			return err
		}
		for _, c := range codes {
			if _, err := fmt.Fprintf(w, "%0*x\n", digits, c); err != nil {
				return err
			}
		}
		return nil
	})
}
