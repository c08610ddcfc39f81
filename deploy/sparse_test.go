package deploy_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/positgan/positgan/ckpt"
	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/deploy"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/policy"
	"github.com/positgan/positgan/quant"
	"github.com/positgan/positgan/sparsity"
)

// reductionOf gives, from the definition (docs/deployment.md), the
// reduction of a weight of the layer kind: the GEMM row of flat index p
// and its position along the reduction.
func reductionOf(kind string, shape []int, p int) (row, pos int) {
	switch kind {
	case "linear": // (out, in): rows are outputs
		return p / shape[1], p % shape[1]
	case "conv2d": // (out, in, k, k): rows are outputs, in·k·k reduced
		k := shape[1] * shape[2] * shape[3]
		return p / k, p % k
	default: // convtranspose2d (in, out, k, k): rows are (out, ky, kx), in reduced
		tap := shape[1] * shape[2] * shape[3]
		return p % tap, p / tap
	}
}

// refMask is the mask from its definition: a weight is kept when fewer
// than n weights of its block (same row, same pos/m) beat it, beating
// meaning a larger |w|, or an equal |w| at a lower position.
func refMask(kind string, shape []int, w []float32, n, m int) []float32 {
	out := make([]float32, len(w))
	for p := range w {
		row, pos := reductionOf(kind, shape, p)
		beaten := 0
		for q := range w {
			r2, pos2 := reductionOf(kind, shape, q)
			if r2 != row || pos2/m != pos/m || q == p {
				continue
			}
			a, b := math.Abs(float64(w[q])), math.Abs(float64(w[p]))
			if a > b || (a == b && pos2 < pos) {
				beaten++
			}
		}
		if beaten < n {
			out[p] = w[p]
		}
	}
	return out
}

// record is a tensor record read from a file's bytes as docs/deployment.md
// lays it out, by a reader independent of package deploy's.
type record struct {
	name, format     string
	bits             int
	layout           byte
	shape            []int
	n, m, from, to   int
	payload, indices []byte
	at               int // the record's offset in the file
}

func records(t *testing.T, b []byte) (version uint32, meta deploy.Meta, recs []record) {
	t.Helper()
	le := binary.LittleEndian
	version = le.Uint32(b[8:])
	ml, count := int(le.Uint32(b[24:])), int(le.Uint32(b[28:]))
	if err := json.Unmarshal(b[32:32+ml], &meta); err != nil {
		t.Fatal(err)
	}
	o := 32 + ml
	u32 := func() int { o += 4; return int(le.Uint32(b[o-4:])) }
	str := func() string { l := int(le.Uint16(b[o:])); o += 2 + l; return string(b[o-l : o]) }
	for range count {
		r := record{at: o}
		r.name, r.format = str(), str()
		r.bits = int(b[o])
		nd := int(b[o+6])
		r.layout = b[o+7]
		o += 8
		for range nd {
			r.shape = append(r.shape, u32())
		}
		if r.layout == 1 {
			r.n, r.m, r.from, r.to = int(b[o]), int(b[o+1]), int(b[o+2]), int(b[o+3])
			o += 4
		}
		l := u32()
		r.payload, o = b[o:o+l], o+l
		if r.layout == 1 {
			l := u32()
			r.indices, o = b[o:o+l], o+l
		}
		recs = append(recs, r)
	}
	if o != len(b)-4 {
		t.Fatalf("records end at %d of %d", o, len(b))
	}
	return version, meta, recs
}

// bitAt reads code i of width w as the documented C function does.
func bitAt(p []byte, i, w int) uint32 {
	var v uint32
	for j := range w {
		k := i*w + j
		v |= uint32(p[k>>3]>>(k&7)&1) << j
	}
	return v
}

// denseFromRecord expands a sparse record by the definition: walking the
// rows and their blocks in order, each block takes the next min(N, size)
// values and indices.
func denseFromRecord(r record, kind string) []uint32 {
	size := 1
	for _, d := range r.shape {
		size *= d
	}
	out := make([]uint32, size)
	ib := 0
	for 1<<ib < r.m {
		ib++
	}
	// The flat indices of each row's reduction, in order.
	rows := map[int][]int{}
	var order []int
	for p := range size {
		row, _ := reductionOf(kind, r.shape, p)
		if _, ok := rows[row]; !ok {
			order = append(order, row)
		}
		rows[row] = append(rows[row], p)
	}
	slices.Sort(order)
	v := 0
	for _, row := range order {
		red := rows[row]
		slices.SortFunc(red, func(a, b int) int {
			_, pa := reductionOf(kind, r.shape, a)
			_, pb := reductionOf(kind, r.shape, b)
			return pa - pb
		})
		for b := 0; b < len(red); b += r.m {
			for range min(r.n, len(red)-b) {
				j := int(bitAt(r.indices, v, ib))
				out[red[b+j]] = bitAt(r.payload, v, r.bits)
				v++
			}
		}
	}
	return out
}

// masked returns a copy of the checkpoint with every generator weight
// masked by refMask.
func masked(t *testing.T, c *ckpt.Checkpoint, layers []deploy.Layer, n, m int) *ckpt.Checkpoint {
	t.Helper()
	out := &ckpt.Checkpoint{Tensors: maps.Clone(c.Tensors), Meta: c.Meta}
	for _, l := range layers {
		ct := c.Tensors[l.Name+".w"]
		out.Tensors[l.Name+".w"] = ckpt.Tensor{Shape: ct.Shape, Data: refMask(l.Kind, ct.Shape, ct.Data, n, m)}
	}
	return out
}

// Done means: an N:M export stores the top-N weights of every block along
// the reduction axes, the file holds them as kept codes and indices that a
// reader written from the format's description expands back, and the
// model read back generates, bit for bit, the images of the checkpoint
// whose weights are masked by the definition, run dense under the policy.
func TestSparseExport(t *testing.T) {
	cases := []struct {
		cfg    models.Config
		policy string
		n, m   int
	}{
		{cgan, "posit6-deploy", 2, 4},
		{cgan, "posit6-deploy-quire", 1, 4},
		{cgan, "", 4, 8},
		{cgan, "fp8-ibm", 1, 2},
		{dcgan, "posit6-deploy", 2, 4},
		{dcgan, "posit6-deploy-per-op", 2, 8},
		{dcgan, "", 1, 3},
	}
	for _, tc := range cases {
		t.Run(tc.cfg.Arch+"/"+tc.policy+"/"+strconv.Itoa(tc.n)+":"+strconv.Itoa(tc.m), func(t *testing.T) {
			c := trained(t, tc.cfg, "")
			var pol *policy.Policy
			if tc.policy != "" {
				pol = mustPolicy(t, tc.policy)
			}
			m, err := deploy.Export(c, pol, deploy.Sparsify(sparsity.Pattern{N: tc.n, M: tc.m}, nil))
			if err != nil {
				t.Fatal(err)
			}
			b, err := m.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			l, err := deploy.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			version, meta, recs := records(t, b)
			if version != 2 {
				t.Errorf("version %d, want 2", version)
			}
			kinds := map[string]string{}
			for _, ly := range meta.Layers {
				if ly.Sparsity != strconv.Itoa(tc.n)+":"+strconv.Itoa(tc.m) {
					t.Errorf("layer %s: sparsity %q", ly.Name, ly.Sparsity)
				}
				kinds[ly.Name+".w"] = ly.Kind
			}
			for i, r := range recs {
				tn := &l.Tensors[i]
				kind, weight := kinds[r.name]
				if !weight {
					if r.layout != 0 || tn.Format.String() != r.format {
						t.Errorf("%s: layout %d", r.name, r.layout)
					}
					continue
				}
				if r.layout != 1 || r.n != tc.n || r.m != tc.m {
					t.Fatalf("%s: layout %d, %d:%d", r.name, r.layout, r.n, r.m)
				}
				// The stored values are those of the weights masked by the
				// definition, rounded to the weight format.
				src := c.Tensors[r.name]
				want := refMask(kind, src.Shape, src.Data, tc.n, tc.m)
				dense := denseFromRecord(r, kind)
				kept := 0
				for p, x := range want {
					wc := uint32(0)
					if x != 0 {
						kept++
						if tn.Format == quant.FP32 {
							wc = math.Float32bits(x)
						} else {
							wc = tn.Format.Encode(x)
						}
					}
					if dense[p] != wc || tn.Codes[p] != wc {
						t.Fatalf("%s[%d]: file %#x, read %#x, want %#x (of %g)", r.name, p, dense[p], tn.Codes[p], wc, x)
					}
				}
				// Compact: exactly min(N, size) values a block.
				_, k := reductionOf(kind, src.Shape, len(src.Data)-1)
				k++
				rows := len(src.Data) / k
				nkept := rows * (k/tc.m*tc.n + min(tc.n, k%tc.m))
				if len(r.payload) != (nkept*r.bits+7)/8 || kept > nkept {
					t.Errorf("%s: %d payload bytes, want %d for %d values", r.name, len(r.payload), (nkept*r.bits+7)/8, nkept)
				}
			}
			z, labels := noise(l.Spec(), 5)
			got, err := l.Generate(z, labels)
			if err != nil {
				t.Fatal(err)
			}
			ref := reference(t, masked(t, c, meta.Layers, tc.n, tc.m), pol, z, labels)
			for i := range ref {
				if math.Float32bits(got[i]) != math.Float32bits(ref[i]) {
					t.Fatalf("value %d: %g, the dense masked checkpoint %g", i, got[i], ref[i])
				}
			}
			if len(b) >= len(mustBytes(t, c, pol)) {
				t.Errorf("the %d:%d file (%d bytes) is not smaller than the dense one", tc.n, tc.m, len(b))
			}
		})
	}
}

func mustBytes(t *testing.T, c *ckpt.Checkpoint, pol *policy.Policy, opts ...deploy.Option) []byte {
	t.Helper()
	m, err := deploy.Export(c, pol, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A model without sparse tensors is written as version 1, and the files of
// version 1 in testdata still read.
func TestVersion1(t *testing.T) {
	b := mustBytes(t, trained(t, cgan, ""), mustPolicy(t, "posit6-deploy"))
	if v := binary.LittleEndian.Uint32(b[8:]); v != 1 {
		t.Errorf("dense model written as version %d, want 1", v)
	}
	for _, name := range []string{"cgan", "dcgan"} {
		seed, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzLoad", name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(seed), "\n")
		raw, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32([]byte(raw)[8:]); v != 1 {
			t.Fatalf("testdata %s is version %d", name, v)
		}
		m, err := deploy.Parse([]byte(raw))
		if err != nil {
			t.Fatalf("testdata %s: %v", name, err)
		}
		if _, err := m.Generate(make([]float32, m.Spec().ZSize()), make([]int, min(1, m.Spec().Classes))); err != nil {
			t.Errorf("testdata %s: %v", name, err)
		}
		again, err := m.Bytes()
		if err != nil || string(again) != raw {
			t.Errorf("testdata %s does not write back byte for byte (%v)", name, err)
		}
	}
}

// Hostile sparse records give one-line FormatErrors.
func TestSparseDamaged(t *testing.T) {
	c := trained(t, cgan, "")
	b := mustBytes(t, c, mustPolicy(t, "posit6-deploy"), deploy.Sparsify(sparsity.Pattern{N: 2, M: 4}, nil))
	_, _, recs := records(t, b)
	w := recs[0] // G/fc1.w: (8, 10), blocks 4, 4, 2
	if w.name != "G/fc1.w" || w.layout != 1 {
		t.Fatalf("first record %s layout %d", w.name, w.layout)
	}
	// Offsets within the record.
	nameEnd := w.at + 2 + len(w.name) + 2 + len(w.format)
	layoutAt := nameEnd + 7
	nmAt := nameEnd + 8 + 4*len(w.shape)
	idxAt := nmAt + 4 + 4 + len(w.payload) + 4
	fix := func(d []byte) []byte {
		binary.LittleEndian.PutUint32(d[len(d)-4:], crc32.ChecksumIEEE(d[:len(d)-4]))
		return d
	}
	edit := func(f func(d []byte)) []byte {
		d := slices.Clone(b)
		f(d)
		return fix(d)
	}
	for _, tc := range []struct {
		what string
		data []byte
		want string
	}{
		{"indices descending", edit(func(d []byte) { d[idxAt] = 0b0001_1011 }), "ascending"}, // block 0: 3, 2
		{"index repeated", edit(func(d []byte) { d[idxAt] = 0b0101_0101 }), "ascending"},
		{"index past a short block", edit(func(d []byte) {
			// Row 0's third block has 2 values: indices 4 and 5 of the
			// row; make its second index 3 (> the block's 2 values).
			v := uint32(binary.LittleEndian.Uint16(d[idxAt:]))
			v |= 3 << 10
			binary.LittleEndian.PutUint16(d[idxAt:], uint16(v))
		}), "within the block"},
		{"N = M", edit(func(d []byte) { d[nmAt] = 4 }), "want 1 <= N < M"},
		{"N = 0", edit(func(d []byte) { d[nmAt] = 0 }), "want 1 <= N < M"},
		{"M = 17", edit(func(d []byte) { d[nmAt+1] = 17 }), "want 1 <= N < M"},
		{"axes past the shape", edit(func(d []byte) { d[nmAt+3] = 3 }), "axes within the shape"},
		{"other axes", edit(func(d []byte) { d[nmAt+2], d[nmAt+3] = 0, 1 }), "payload bytes"}, // 40 values kept, not 48
		{"1:4 instead of 2:4", edit(func(d []byte) { d[nmAt] = 1 }), "payload bytes"},
		{"layout 2", edit(func(d []byte) { d[layoutAt] = 2 }), "unknown layout 2"},
		{"dense in a sparse layer", edit(func(d []byte) { d[layoutAt] = 0 }), ""},
		{"version 1", edit(func(d []byte) { d[8] = 1 }), ""}, // the layout byte is then not read
		{"index payload cut", func() []byte {
			d := slices.Clone(b)
			binary.LittleEndian.PutUint32(d[idxAt-4:], uint32(len(w.indices)+1<<20))
			return fix(d)
		}(), "past the end"},
	} {
		_, err := deploy.Parse(tc.data)
		var fe deploy.FormatError
		switch {
		case err == nil:
			t.Errorf("%s: no error", tc.what)
		case !errors.As(err, &fe):
			t.Errorf("%s: error %T %v", tc.what, err, err)
		case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: error %q, want one line with %q", tc.what, err, tc.want)
		}
	}
	// A layer saying 2:4 over weights stored dense, and a dense layer
	// over sparse weights.
	m, err := deploy.Export(c, mustPolicy(t, "posit6-deploy"), deploy.Sparsify(sparsity.Pattern{N: 2, M: 4}, func(l string) bool { return l == "G/fc1" }))
	if err != nil {
		t.Fatal(err)
	}
	m.Meta.Layers[1].Sparsity = "2:4"
	if b, err := m.Bytes(); err != nil {
		t.Fatal(err)
	} else if _, err := deploy.Parse(b); err == nil || !strings.Contains(err.Error(), `stored "" sparse, its layer says "2:4"`) {
		t.Errorf("a sparse layer over dense weights: %v", err)
	}
	m.Meta.Layers[1].Sparsity, m.Meta.Layers[0].Sparsity = "", ""
	if b, err := m.Bytes(); err != nil {
		t.Fatal(err)
	} else if _, err := deploy.Parse(b); err == nil || !strings.Contains(err.Error(), `stored "2:4" sparse, its layer says ""`) {
		t.Errorf("a dense layer over sparse weights: %v", err)
	}
	// Sparse along axes that are not the layer's reduction (all-zero
	// codes, which are sparse along any axes).
	m.Meta.Layers[0].Sparsity = "2:4"
	clear(m.Tensors[0].Codes)
	m.Tensors[0].Sparse.From, m.Tensors[0].Sparse.To = 0, 1
	if b, err := m.Bytes(); err != nil {
		t.Fatal(err)
	} else if _, err := deploy.Parse(b); err == nil || !strings.Contains(err.Error(), "reduces along [1, 2)") {
		t.Errorf("sparse along the output axis: %v", err)
	}
	m.Tensors[0].Sparse.From, m.Tensors[0].Sparse.To = 1, 2
	// Weights that are not N:M sparse do not write.
	m.Tensors[0].Codes[0], m.Tensors[0].Codes[1], m.Tensors[0].Codes[2] = 1, 1, 1
	if _, err := m.Bytes(); err == nil || !strings.Contains(err.Error(), "not 2:4 sparse") {
		t.Errorf("3 non-zero codes in a 2:4 block: %v", err)
	}
}

// Mask keeps what refMask keeps, ties included, for every layer kind.
func TestMask(t *testing.T) {
	w := []float32{1, -1, 1, 0.5, 0, 0, -0.25, 0.25, 3, 3, -3, 3, 2, 0, 0, 0, 1, 2, 2, 1, 0.5, 0.5, 0.5, 0.5}
	for _, tc := range []struct {
		kind  string
		shape []int
	}{
		{"linear", []int{2, 12}},
		{"linear", []int{4, 6}},
		{"conv2d", []int{2, 6, 1, 2}},
		{"convtranspose2d", []int{6, 2, 2, 1}},
		{"convtranspose2d", []int{3, 8, 1, 1}},
	} {
		for _, nm := range [][2]int{{1, 2}, {2, 4}, {1, 4}, {3, 4}, {2, 3}, {4, 8}, {1, 16}, {5, 16}} {
			from, to, _ := deploy.ReductionAxes(tc.kind)
			s := deploy.Sparsity{N: nm[0], M: nm[1], From: from, To: to}
			got := deploy.Mask(s, tc.shape, w)
			want := refMask(tc.kind, tc.shape, w, nm[0], nm[1])
			if !slices.Equal(got, want) {
				t.Errorf("%s %v %s: Mask %v, want %v", tc.kind, tc.shape, s, got, want)
			}
		}
	}
}

// A policy with N:M weight sparsity exports its layers' masks (those the
// products read: the abs scorer's, a random scorer's), compactly, and the
// model generates the images of the checkpoint run under that policy, bit
// for bit; so does a checkpoint trained sparse, under its own policy.
func TestSparsePolicyExport(t *testing.T) {
	random := func(name string) *policy.Policy {
		p := mustPolicy(t, name)
		if err := p.Apply("score=random"); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name   string
		cfg    models.Config
		train  string
		export *policy.Policy // nil: the checkpoint's
		want   string         // the layers' sparsity
	}{
		{"cgan/posit6-deploy@2:4", cgan, "", mustPolicy(t, "posit6-deploy@2:4"), "2:4"},
		{"cgan/posit8@1:4/random", cgan, "", random("posit8@1:4"), "1:4"},
		{"dcgan/posit6-deploy-quire@2:8", dcgan, "", mustPolicy(t, "posit6-deploy-quire@2:8"), "2:8"},
		{"cgan/trained posit8@2:4", cgan, "posit8@2:4", nil, "2:4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := trained(t, tc.cfg, tc.train)
			m, l, b := roundTrip(t, c, tc.export)
			for _, ly := range l.Meta.Layers {
				if ly.Sparsity != tc.want || l.Tensor(ly.Name+".w").Sparse.String() != tc.want {
					t.Errorf("layer %s: sparsity %q, its weights %q, want %q", ly.Name, ly.Sparsity, l.Tensor(ly.Name+".w").Sparse, tc.want)
				}
			}
			if v := binary.LittleEndian.Uint32(b[8:]); v != 2 {
				t.Errorf("version %d", v)
			}
			z, labels := noise(l.Spec(), 5)
			got, err := l.Generate(z, labels)
			if err != nil {
				t.Fatal(err)
			}
			want := reference(t, c, tc.export, z, labels)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("value %d: %g, the checkpoint under the policy %g", i, got[i], want[i])
				}
			}
			// The random scorer's mask is not |w|'s: the export followed
			// the layer, not its own choice.
			if strings.Contains(tc.name, "random") {
				ly := m.Meta.Layers[0]
				src := c.Tensors[ly.Name+".w"]
				abs := refMask(ly.Kind, src.Shape, src.Data, 1, 4)
				same := true
				for i, v := range m.Tensor(ly.Name + ".w").Values() {
					same = same && (v == 0) == (abs[i] == 0)
				}
				if same {
					t.Errorf("the random scorer's mask equals |w|'s")
				}
			}
		})
	}
	// A mask frozen in training (fixed_after, random scores, so that the
	// mask is neither |w|'s nor the scorer's at the last step) is the one
	// exported.
	t.Run("cgan/frozen", func(t *testing.T) {
		pol := random("posit8@2:4")
		if err := pol.Apply("fixed_after=1"); err != nil {
			t.Fatal(err)
		}
		m, err := models.New(cgan.WithPolicy(pol))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := gan.NewTrainer(m, []datasets.Dataset{toyData(t, 8, cgan.Height)}, gan.Options{Policy: pol, Batch: 4, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := tr.TrainStep(); err != nil {
				t.Fatal(err)
			}
		}
		c, err := tr.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		frozen := 0
		for name := range c.Tensors {
			if strings.HasPrefix(name, gan.MaskTensor) {
				frozen++
			}
		}
		if frozen == 0 {
			t.Fatal("no frozen mask in the checkpoint")
		}
		_, l, _ := roundTrip(t, c, nil)
		for _, ly := range l.Meta.Layers {
			keep := c.Tensors[gan.MaskTensor+ly.Name+".w"].Data
			for i, v := range l.Tensor(ly.Name + ".w").Values() {
				if v != 0 && keep[i] == 0 {
					t.Fatalf("%s[%d] = %g is dropped by the frozen mask", ly.Name, i, v)
				}
			}
		}
		z, labels := noise(l.Spec(), 5)
		got, err := l.Generate(z, labels)
		if err != nil {
			t.Fatal(err)
		}
		want := reference(t, c, nil, z, labels)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("value %d: %g, the checkpoint %g", i, got[i], want[i])
			}
		}
	})
	// Both a policy's sparsity and Sparsify: refused.
	if _, err := deploy.Export(trained(t, cgan, ""), mustPolicy(t, "posit6-deploy@2:4"), deploy.Sparsify(sparsity.Pattern{N: 1, M: 4}, nil)); err == nil {
		t.Errorf("sparsity from the policy and Sparsify: no error")
	}
}

// The memory files of a sparse weight are its kept codes, one a line, and
// one index word a block; expanded by the definition, they give the
// stored weight codes. Dense tensors keep their one file.
func TestSparseHex(t *testing.T) {
	for _, tc := range []struct {
		cfg  models.Config
		n, m int
	}{{cgan, 2, 4}, {dcgan, 1, 4}, {cgan, 5, 16}} {
		c := trained(t, tc.cfg, "")
		m, err := deploy.Export(c, mustPolicy(t, "posit6-deploy"), deploy.Sparsify(sparsity.Pattern{N: tc.n, M: tc.m}, nil))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		z, labels := noise(m.Spec(), 1)
		if err := m.WriteHex(dir, z, max(0, min(1, len(labels))-1)); err != nil {
			t.Fatal(err)
		}
		var man struct{ Files []deploy.HexFile }
		js, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(js, &man); err != nil {
			t.Fatal(err)
		}
		ib := 0
		for 1<<ib < tc.m {
			ib++
		}
		for _, tn := range m.Tensors {
			var vals, idx *deploy.HexFile
			dense := false
			for i, f := range man.Files {
				if f.Tensor != tn.Name {
					continue
				}
				switch f.Memory {
				case "values":
					vals = &man.Files[i]
				case "indices":
					idx = &man.Files[i]
				default:
					dense = true
				}
			}
			if tn.Sparse.Dense() {
				if !dense || vals != nil || idx != nil {
					t.Errorf("%s: dense tensor, files dense %v, values %v, indices %v", tn.Name, dense, vals, idx)
				}
				continue
			}
			if dense || vals == nil || idx == nil || idx.Bits != tc.n*ib || idx.Format != "index" || vals.Sparsity != tn.Sparse.String() {
				t.Fatalf("%s: sparse tensor, files dense %v, values %+v, indices %+v", tn.Name, dense, vals, idx)
			}
			v := readHex(t, filepath.Join(dir, vals.File))
			words := readHex(t, filepath.Join(dir, idx.File))
			// Expand by the definition: GEMM rows in order, each cut into
			// blocks of M along the reduction; a block's word holds its
			// indices ib bits apart, its values follow in the values file.
			kind := ""
			for _, ly := range m.Meta.Layers {
				if ly.Name+".w" == tn.Name {
					kind = ly.Kind
				}
			}
			rows := map[int][]int{}
			for p := range tn.Codes {
				r, _ := reductionOf(kind, tn.Shape, p)
				rows[r] = append(rows[r], p) // ascending p is ascending position for every kind
			}
			got := make([]uint32, len(tn.Codes))
			vi, wi := 0, 0
			for r := range len(rows) {
				red := rows[r]
				for b := 0; b < len(red); b += tc.m {
					w := uint64(words[wi])
					wi++
					for j := range min(tc.n, len(red)-b) {
						k := int(w >> (j * ib) & (1<<ib - 1))
						got[red[b+k]] = v[vi]
						vi++
					}
				}
			}
			if vi != len(v) || wi != len(words) || !slices.Equal(got, tn.Codes) {
				t.Errorf("%s: %d of %d values, %d of %d index words; expanded codes equal: %v", tn.Name, vi, len(v), wi, len(words), slices.Equal(got, tn.Codes))
			}
		}
	}
}

// Folding batch norm into sparse layers keeps them sparse (a dropped
// weight stays code 0, also for a negative scale), in float32 too.
func TestSparseFold(t *testing.T) {
	c := trained(t, cgan, "")
	// Negative scales: γ < 0 in every folded norm.
	c = &ckpt.Checkpoint{Tensors: maps.Clone(c.Tensors), Meta: c.Meta}
	for name, tn := range c.Tensors {
		if strings.HasSuffix(name, ".gamma") {
			g := slices.Clone(tn.Data)
			for i := range g {
				g[i] = -g[i]
			}
			c.Tensors[name] = ckpt.Tensor{Shape: tn.Shape, Data: g}
		}
	}
	for _, name := range []string{"posit6-deploy@2:4", "fp32@2:4"} {
		m, err := deploy.Export(c, mustPolicy(t, name), deploy.FoldBatchNorm())
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Bytes()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		l, err := deploy.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(l.Meta.Folded) == 0 || l.Tensor("G/fc2.w").Sparse.String() != "2:4" {
			t.Errorf("%s: folded %v, fc2 %q", name, l.Meta.Folded, l.Tensor("G/fc2.w").Sparse)
		}
	}
}
