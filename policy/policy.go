package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/positgan/positgan/internal/regfile"
	"github.com/positgan/positgan/internal/tomlsafe"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/quant"
)

// A Policy says, for every layer of a network, which format each tensor
// role uses and how dot products accumulate: a default for all layers plus
// overrides for the layers whose names match a glob (path.Match syntax:
// "G/*" matches "G/conv1" but not "G/block1/conv"). Overrides apply in the
// order they were added; a later one wins where two set the same field.
//
// A Policy comes from a preset (see Presets), a TOML file (Read), or
// both (Parse), and is adjusted with settings such as
// "G/*:weight=posit(8,1,scale=4)" (Apply). Its String is TOML that
// Read reads back into an equal policy, so a checkpoint can store it.
//
// A nil *Policy means float32 everywhere.
type Policy struct {
	// Name is a short label for tables and logs: the preset name, or the
	// name given in the file. Set and Apply leave it alone.
	Name      string
	Default   nn.LayerFormats
	LossScale LossScale
	// Tanh names an approximation for the generator's output tanh, as
	// package tanhapprox parses it ("bitwise-corrected:posit(16,0)",
	// "pwl:3"); "" is the exact tanh. The model that applies the policy
	// builds it (policy does not import tanhapprox), so a bad spec is
	// reported when the model is built; Set checks only the method name.
	Tanh      string
	overrides []override
	promoteState
}

// LossScale is the loss scaling a policy asks for: the loss is multiplied
// by Scale before the backward pass and the weight gradients divided by it
// after. Scale 0 (the zero LossScale) means no loss scaling. With Dynamic
// set, Scale is the starting value of dynamic loss scaling (the scaling
// package).
type LossScale struct {
	Scale   float64
	Dynamic bool
}

// override is one glob and the fields it sets.
type override struct {
	match string
	set   [numKeys]bool
	lf    nn.LayerFormats
	sp    sparseSet // the sparsity keys (sparsity.go)
}

// The settable fields of a layer, in the order Apply and the TOML file use.
const (
	keyWeight = iota
	keyAct
	keyOut
	keyErr
	keyWGrad
	keyAccum
	keyAccumFormat
	keyRounding
	// The roles of the whole training step (LayerFormats.Other, Master,
	// Grad, Moment1, Moment2), each a format and a rounding. They come
	// after the dot-product keys, so that the files of older policies
	// keep their layout.
	keyOther
	keyMaster
	keyGrad
	keyMoment1
	keyMoment2
	keyOtherRounding
	keyMasterRounding
	keyGradRounding
	keyMoment1Rounding
	keyMoment2Rounding
	numKeys
)

var keyNames = [numKeys]string{"weight", "act", "out", "err", "wgrad", "accum", "accum_format", "rounding",
	"other", "master", "grad", "moment1", "moment2",
	"other_rounding", "master_rounding", "grad_rounding", "moment1_rounding", "moment2_rounding"}

// firstStepKey is the first key of the whole-step roles: WriteTOML leaves
// them out of [default] while they are float32 with nearest rounding, so
// that the files of policies that do not use them are as before.
const firstStepKey = keyOther

// Shorthand keys setting several formats at once.
var shorthands = map[string][]int{
	"all":              {keyWeight, keyAct, keyOut, keyErr, keyWGrad},
	"dot":              {keyWeight, keyAct}, // the two operands of the forward dot product
	"moments":          {keyMoment1, keyMoment2},
	"moments_rounding": {keyMoment1Rounding, keyMoment2Rounding},
}

// isBlockName reports whether name is a block-scaled format.
func isBlockName(name string) bool {
	_, err := quant.ParseBlock(name)
	return err == nil
}

const noFormat = "none" // the name of "no rounding" in settings and files

// For returns the formats the layer with the given name uses: the default,
// overridden by every matching override in order.
func (p *Policy) For(layer string) nn.LayerFormats {
	if p == nil {
		return nn.LayerFormats{}
	}
	lf := p.Default
	for i := range p.overrides {
		o := &p.overrides[i]
		if ok, _ := path.Match(o.match, layer); !ok { // patterns are checked when added
			continue
		}
		for k := range numKeys {
			if o.set[k] {
				setField(&lf, k, &o.lf)
			}
		}
		o.sp.apply(&lf.Sparsity)
	}
	lf.Promoter = p.promoter
	return lf
}

// roleField returns the address of the role whose quantizer key k sets
// (its format, or a whole-step role's rounding), or nil for the keys
// that set no one role (accum, accum_format, rounding).
func roleField(lf *nn.LayerFormats, k int) *nn.Quantizer {
	switch k {
	case keyWeight:
		return &lf.Weight
	case keyAct:
		return &lf.Act
	case keyOut:
		return &lf.Out
	case keyErr:
		return &lf.Err
	case keyWGrad:
		return &lf.WGrad
	case keyOther, keyOtherRounding:
		return &lf.Other
	case keyMaster, keyMasterRounding:
		return &lf.Master
	case keyGrad, keyGradRounding:
		return &lf.Grad
	case keyMoment1, keyMoment1Rounding:
		return &lf.Moment1
	case keyMoment2, keyMoment2Rounding:
		return &lf.Moment2
	}
	return nil
}

// dotRoles returns the addresses of the five dot-product roles of lf,
// whose rounding the key rounding sets together.
func dotRoles(lf *nn.LayerFormats) [5]*nn.Quantizer {
	return [...]*nn.Quantizer{&lf.Weight, &lf.Act, &lf.Out, &lf.Err, &lf.WGrad}
}

// isRoundingKey reports whether key k sets a whole-step role's rounding.
func isRoundingKey(k int) bool { return k >= keyOtherRounding && k <= keyMoment2Rounding }

// formatField returns the address of format field k of lf, or nil for the
// keys that are not formats (accum, the roundings).
func formatField(lf *nn.LayerFormats, k int) *quant.Format {
	if k == keyAccumFormat {
		return &lf.AccumFormat
	}
	if r := roleField(lf, k); r != nil && !isRoundingKey(k) {
		return &r.Format
	}
	return nil
}

// blockField returns the address of the block format of role k of lf, or
// nil for the roles that take none (the results out and wgrad, the
// whole-step roles, and the keys that are not formats).
func blockField(lf *nn.LayerFormats, k int) *quant.BlockFormat {
	switch k {
	case keyWeight:
		return &lf.Weight.Block
	case keyAct:
		return &lf.Act.Block
	case keyErr:
		return &lf.Err.Block
	}
	return nil
}

// setField copies field k of src to dst.
func setField(dst *nn.LayerFormats, k int, src *nn.LayerFormats) {
	switch {
	case k == keyAccum:
		dst.Accum = src.Accum
	case k == keyRounding:
		for i, q := range dotRoles(dst) {
			q.Rounding = dotRoles(src)[i].Rounding
		}
	case isRoundingKey(k):
		roleField(dst, k).Rounding = roleField(src, k).Rounding
	default:
		if k == keyOther {
			dst.OtherNone = src.OtherNone
		}
		*formatField(dst, k) = *formatField(src, k)
		if b := blockField(dst, k); b != nil {
			*b = *blockField(src, k)
		}
	}
}

// fieldString returns field k of lf as it appears in a setting.
func fieldString(lf *nn.LayerFormats, k int) string {
	switch {
	case k == keyAccum:
		return lf.Accum.String()
	case k == keyRounding:
		return lf.DotRounding().String() // set together, so one
	case isRoundingKey(k):
		return roleField(lf, k).Rounding.String()
	}
	if b := blockField(lf, k); b != nil && !b.IsZero() {
		return b.String()
	}
	if f := *formatField(lf, k); f != nil {
		return f.String()
	}
	return noFormat
}

// parseField parses value as field k into lf; with files false, a format
// that names a file (table:FILE) is an error.
func parseField(lf *nn.LayerFormats, k int, value string, files bool) error {
	var err error
	switch {
	case k == keyAccum:
		lf.Accum, err = quant.ParseAccumulation(value)
		return err
	case k == keyRounding:
		r, err := quant.ParseRounding(value)
		for _, q := range dotRoles(lf) {
			q.Rounding = r
		}
		return err
	case isRoundingKey(k):
		roleField(lf, k).Rounding, err = quant.ParseRounding(value)
		return err
	}
	var f quant.Format
	var b quant.BlockFormat
	switch {
	case strings.TrimSpace(value) == noFormat:
	case isBlockName(value):
		if blockField(lf, k) == nil {
			return Error(fmt.Sprintf("%s is block-scaled: only the dot-product operands weight, act and err take block formats", value))
		}
		b, _ = quant.ParseBlock(value)
	case files:
		if f, err = quant.Parse(value); err != nil {
			return err
		}
	default:
		if f, err = quant.ParseSelfContained(value); err != nil {
			return err
		}
	}
	*formatField(lf, k) = f
	if k == keyOther {
		lf.OtherNone = f == nil // named none, not left unnamed
	}
	if bf := blockField(lf, k); bf != nil {
		*bf = b
	}
	return nil
}

// lookupKey returns the fields a key sets.
func lookupKey(key string) ([]int, error) {
	if ks, ok := shorthands[key]; ok {
		return ks, nil
	}
	if i := slices.Index(keyNames[:], key); i >= 0 {
		return []int{i}, nil
	}
	return nil, Error(fmt.Sprintf("unknown key %q (want %s, or all, dot, moments, moments_rounding)", key, strings.Join(keyNames[:], ", ")))
}

// Set sets field key of the layers matching glob to value; glob "" means
// the default. Keys are weight, act, out, err, wgrad (formats: a name Parse
// accepts, or "none" for float32), accum (fp32, quire, per-op),
// accum_format (a format or none), rounding (nearest, stochastic: the
// rounding of the five formats above), the whole-step roles other,
// master, grad, moment1, moment2 (formats, see LayerFormats) with their
// roundings other_rounding, master_rounding, grad_rounding,
// moment1_rounding, moment2_rounding (other=none names float32, which a
// residual add then keeps; left unnamed, it promotes), the shorthands
// all (the five dot-product formats), dot (weight and act), moments
// (moment1 and moment2) and moments_rounding, prefer (a list of
// formats, the whole policy's: see Prefer), and the sparsity keys
// sparsity and grad_sparsity (N:M or dense), score (a scorer name) and
// fixed_after (a step; see nn.Sparsity). Setting the same glob again
// changes its existing override, keeping its place in the order. A
// format may name a file (table:FILE): Set is for settings a
// user typed; Read, for files, never opens one.
func (p *Policy) Set(glob, key, value string) error { return p.set(glob, key, value, true) }

// set is Set; with files false it refuses formats that name a file.
func (p *Policy) set(glob, key, value string, files bool) error {
	switch key {
	case "tanh":
		return p.setTanh(glob, value)
	case "prefer":
		return p.setPrefer(glob, value)
	}
	if k, ok := sparseKey(key); ok {
		return p.setSparse(glob, k, value)
	}
	defer p.updatePromoter() // the policy's formats are known to promotion
	ks, err := lookupKey(key)
	if err != nil {
		return err
	}
	var v nn.LayerFormats
	for _, k := range ks {
		if err := parseField(&v, k, value, files); err != nil {
			return Error(fmt.Sprintf("%s=%s: %v", key, value, err))
		}
	}
	if glob == "" {
		for _, k := range ks {
			setField(&p.Default, k, &v)
		}
		return nil
	}
	o, err := p.overrideFor(glob)
	if err != nil {
		return err
	}
	for _, k := range ks {
		setField(&o.lf, k, &v)
		o.set[k] = true
	}
	return nil
}

// overrideFor returns the override of glob, added at the end if p has
// none.
func (p *Policy) overrideFor(glob string) (*override, error) {
	if _, err := path.Match(glob, ""); err != nil {
		return nil, Error(fmt.Sprintf("layer glob %q: %v", glob, err))
	}
	if !utf8.ValidString(glob) {
		return nil, Error(fmt.Sprintf("layer glob %q: not valid UTF-8", glob))
	}
	i := slices.IndexFunc(p.overrides, func(o override) bool { return o.match == glob })
	if i < 0 {
		p.overrides = append(p.overrides, override{match: glob})
		i = len(p.overrides) - 1
	}
	return &p.overrides[i], nil
}

// setTanh sets the output activation (the key tanh, which takes no glob).
func (p *Policy) setTanh(glob, value string) error {
	if glob != "" {
		return Error(fmt.Sprintf("tanh=%s: tanh is the generator's output activation and takes no layer glob", value))
	}
	if !utf8.ValidString(value) {
		return Error(fmt.Sprintf("tanh=%q: not valid UTF-8", value))
	}
	method, _, _ := strings.Cut(value, ":")
	switch method {
	case "exact", "":
		p.Tanh = ""
	case "bitwise", "bitwise-corrected", "pwl":
		p.Tanh = value
	default:
		return Error(fmt.Sprintf("tanh=%s: want exact, bitwise, bitwise-corrected or pwl:K (optionally :FORMAT)", value))
	}
	return nil
}

// Apply applies a setting of the form "[glob:]key=value", as given on a
// command line: "weight=posit(8,1)" sets the default,
// "G/conv*:err=posit(8,1,scale=-3)" overrides the matching layers. See Set
// for the keys. The glob is everything before the last ':' ahead of the
// first '=' (format names contain '=' but never ':').
func (p *Policy) Apply(setting string) error {
	lhs, value, ok := strings.Cut(setting, "=")
	if !ok {
		return Error(fmt.Sprintf("setting %q: want [glob:]key=value", setting))
	}
	glob, key := "", lhs
	if i := strings.LastIndexByte(lhs, ':'); i >= 0 {
		glob, key = lhs[:i], lhs[i+1:]
		if glob == "" {
			return Error(fmt.Sprintf("setting %q: empty layer glob", setting))
		}
	}
	if err := p.Set(glob, strings.TrimSpace(key), value); err != nil {
		return fmt.Errorf("setting %q: %w", setting, err)
	}
	return nil
}

// Clone returns a deep copy of p.
func (p *Policy) Clone() *Policy {
	q := *p
	q.overrides = slices.Clone(p.overrides)
	return &q
}

// Error reports a policy setting, file or name that is not valid.
type Error string

func (e Error) Error() string { return "policy: bad policy: " + string(e) }

// ---- presets ----

// policyPreset is a named policy: its description (with its source) and its
// settings, applied to an all-float32 policy.
type policyPreset struct {
	name, doc string
	settings  []string
	loss      LossScale
}

// The dot-product settings of posit8+ and fp8-ibm, which the presets
// built on them (posit8+t, p8+-paper, fp8-ibm-paper) extend.
var (
	posit8PlusDot = []string{"all=posit(8,1)", "weight=posit(8,1,scale=4)", "act=posit(8,1,scale=1)", "out=posit(8,1,scale=1)"}
	fp8IBMDot     = []string{"dot=fp8-ibm-fwd", "err=fp8-ibm-bwd", "wgrad=fp8-ibm-bwd", "out=float(6,9)", "accum_format=float(6,9)"}
)

// extend returns the settings base followed by more, in a slice of their
// own.
func extend(base []string, more ...string) []string {
	return append(slices.Clip(base), more...)
}

// The low-precision training presets start dynamic loss scaling at 2^10,
// which lifts typical GAN errors (2^-10..2^-15 in the generator) towards
// the accurate middle of 8-bit formats; the scaling package adapts it
// during training.
var policyPresets = []policyPreset{
	{
		name: "fp32",
		doc:  "float32 everywhere: the reference.",
	},
	{
		name: "fp16",
		doc: "Mixed precision (Micikevicius et al., ICLR 2018): the dot products' operands, outputs, errors and weight gradients " +
			"in IEEE half precision, summed in float32; everything else (master weights, normalisation, loss) float32. " +
			"Dynamic loss scaling from 2^16, as PyTorch's GradScaler.",
		settings: []string{"all=fp16"},
		loss:     LossScale{Scale: 65536, Dynamic: true},
	},
	{
		name: "posit8",
		doc: "P(8,2), the 8-bit posit of the 2022 posit standard, for every dot-product tensor " +
			"(weights, activations, outputs, errors, weight gradients); no exponent bias, no loss scaling: the naive baseline.",
		settings: []string{"all=posit(8,2)"},
	},
	{
		name: "posit8+",
		doc: "P(8,1) with exponent biases and loss scaling, the recipe of Ho et al., \"Posit arithmetic for the training " +
			"and deployment of GANs\" (DATE 2021). Weights, whose bulk sits near 2^-5..2^-4, get bias 4 and activations " +
			"and outputs (2^-2..2^0) bias 1, which centres each on P(8,1)'s most accurate binades [2^-2, 2^2); errors " +
			"and weight gradients are unbiased and lifted by dynamic loss scaling from 2^10. These are starting biases: " +
			"the scaling package re-estimates them from measured histograms.",
		settings: posit8PlusDot,
		loss:     LossScale{Scale: 1024, Dynamic: true},
	},
	{
		name: "posit8+t",
		doc: "posit8+ with the generator's output tanh replaced by the corrected bitwise posit tanh on posit(16,0) " +
			"(Ho et al.'s \"P8+T\"; tanhapprox): tanh(x) = 2·sigmoid(2x)-1 with the sigmoid read off the posit bits, " +
			"pulled toward ±1 beyond |R| > 0.7583. Set another with tanh=bitwise-corrected:posit(8,0) or tanh=pwl:3.",
		settings: extend(posit8PlusDot, "tanh=bitwise-corrected:posit(16,0)"),
		loss:     LossScale{Scale: 1024, Dynamic: true},
	},
	{
		name: "posit6-deploy",
		doc: "Deployment (inference) with 6-bit posits, after Ho et al. (DATE 2021): P(6,1) for the dot products' " +
			"operands (weights, activations), P(16,1) for everything else (outputs; errors and weight gradients if " +
			"trained). No exponent bias; set one with weight=posit(6,1,scale=k).",
		settings: []string{"all=posit(16,1)", "dot=posit(6,1)"},
	},
	{
		name: "cyclegan-posit8-infer",
		doc: "CycleGAN inference as the posit GAN archive of Ho et al. runs it (their CycleGAN deployment study, judged by " +
			"PSNR/SSIM against the float32 model's outputs): P(8,1) for the convolutions' inputs and weights, the weights " +
			"at scale 8 (exponent bias 8, the archive's setting), P(16,1) for the generators' first and last convolutions " +
			"(G_*/in, G_*/out) and for everything else. Use with positgan translate --policy.",
		settings: []string{"all=posit(16,1)", "act=posit(8,1)", "weight=posit(8,1,scale=8)",
			"G_*/in:dot=posit(16,1)", "G_*/out:dot=posit(16,1)"},
	},
	{
		name: "fp8-ibm",
		doc: "IBM's hybrid FP8 (Sun et al., \"Hybrid 8-bit floating point training and inference\", NeurIPS 2019): " +
			"1-4-3 (fp8-ibm-fwd) for the forward operands (weights, activations), 1-5-2 (fp8-ibm-bwd) for errors and " +
			"weight gradients, and FP(1,6,9) = float(6,9) (Wang et al., NeurIPS 2018) for outputs and as the " +
			"accumulation format, which fp8-ibm-per-op rounds every partial sum to (plain fp8-ibm sums in float32). " +
			"Dynamic loss scaling from 2^10.",
		settings: fp8IBMDot,
		loss:     LossScale{Scale: 1024, Dynamic: true},
	},
	{
		name: "p8-paper",
		doc: "Ho et al.'s P8 baseline as the paper states it (DATE 2021): \"P(8,2) without loss scaling & w/o exponent " +
			"bias\", read as P(8,2) everywhere a step rounds: every dot-product tensor, the other layers (norms, " +
			"activations, residual adds, the loss), the stored weights after each update, the gradients Adam sees and " +
			"Adam's moments, all to nearest. posit8 rounds only the dot-product tensors.",
		settings: []string{"all=posit(8,2)", "other=posit(8,2)", "master=posit(8,2)", "grad=posit(8,2)", "moments=posit(8,2)"},
	},
	{
		name: "p8+-paper",
		doc: "Ho et al.'s P8 recipe as the paper states it (DATE 2021): \"P8 = P(8,1) for dot product + P(16,1) other " +
			"layers\", with exponent biases and loss scaling: posit8+'s dot-product formats, biases and dynamic loss " +
			"scaling from 2^10, plus P(16,1) for the inputs and outputs of every other layer (norms, activations, " +
			"residual adds, the loss) and the gradients they pass back. Stored weights, gradients and Adam's state " +
			"stay float32, as the sentence names no format for them.",
		settings: extend(posit8PlusDot, "other=posit(16,1)"),
		loss:     LossScale{Scale: 1024, Dynamic: true},
	},
	{
		name: "fp8-ibm-paper",
		doc: "Ho et al.'s FP8 row as the paper states it (DATE 2021): \"FP8 = IBM hybrid FP8 for dot product + FP16 " +
			"(1,6,9) other layers\": fp8-ibm's dot-product formats (1-4-3 forward operands, 1-5-2 errors and weight " +
			"gradients, float(6,9) outputs) and dynamic loss scaling from 2^10, plus float(6,9) for the inputs and " +
			"outputs of every other layer. Stored weights, gradients and Adam's state stay float32.",
		settings: extend(fp8IBMDot, "other=float(6,9)"),
		loss:     LossScale{Scale: 1024, Dynamic: true},
	},
	{
		name: "fp16-apex",
		doc: "FP16 training as NVIDIA APEX's opt level O2 (\"Almost FP16\" mixed precision) does it: it casts the model " +
			"to FP16, keeps batch norms in FP32, maintains FP32 master weights and scales the loss dynamically. Here: " +
			"the model and its activations in IEEE half precision (every dot-product tensor and every other " +
			"layer's outputs and gradients), FP32 master weights, gradients and Adam state, the loss computed in FP32 " +
			"from outputs cast to FP32 (loss:other=none), dynamic loss scaling from 2^16. Batch norm computes in FP32 " +
			"inside the layer (as every layer here does); its FP16 output is what O2's cuDNN batch norm returns.",
		settings: []string{"all=fp16", "other=fp16", "loss:other=none"},
		loss:     LossScale{Scale: 65536, Dynamic: true},
	},
	{
		name: "mxfp8",
		doc: "OCP Microscaling MXFP8 training, as Transformer Engine's MXFP8BlockScaling recipe with fp8_format=HYBRID: " +
			"weights and activations in MXFP8 E4M3, errors in MXFP8 E5M2, blocks of 32 with an E8M0 scale along the " +
			"reduction dimension of every dot product (forward and both backward products, re-blocked from the " +
			"unrounded tensors for the transposed ones). TE's default MXFP8 recipe is E4M3 everywhere; set it with " +
			"err=mxfp8-e4m3. Outputs and weight gradients stay float32; no loss scaling (every block has its own scale).",
		settings: []string{"dot=mxfp8-e4m3", "err=mxfp8-e5m2"},
	},
	{
		name: "mxfp6",
		doc: "OCP Microscaling MXFP6: weights and activations in MXFP6 E2M3 (more precision), errors in MXFP6 E3M2 " +
			"(more range), by analogy with FP8's hybrid recipe; blocks of 32 along every reduction dimension as mxfp8.",
		settings: []string{"dot=mxfp6-e2m3", "err=mxfp6-e3m2"},
	},
	{
		name: "mxfp4-deploy",
		doc: "Deployment (inference) in OCP Microscaling MXFP4: weights and activations in MXFP4 E2M1, blocks of 32 " +
			"along the input features; everything else float32.",
		settings: []string{"dot=mxfp4-e2m1"},
	},
	{
		name: "posit8-block",
		doc: "Block-scaled posits: P(8,1) elements whose exponent bias is chosen per block of 32 from the block's " +
			"largest magnitude and stored in 8 bits (posit(8,1,block=32)), for weights, activations and errors, " +
			"blocked as mxfp8: posit8+'s exponent biases made automatic and local. Outputs and weight gradients stay " +
			"float32; no loss scaling.",
		settings: []string{"dot=posit(8,1,block=32)", "err=posit(8,1,block=32)"},
	},
}

// accumSuffixes are the preset-name suffixes that override accumulation.
var accumSuffixes = []struct {
	suffix string
	accum  quant.Accumulation
}{
	{"-quire", quant.AccumQuire},
	{"-per-op", quant.AccumPerOp},
	{"-fp32", quant.AccumFP32},
}

// Presets returns the policy preset names with a one-paragraph description of
// each, in a fixed order. Any preset name may carry the suffix -quire,
// -per-op or -fp32 to set the accumulation of every layer (posit8+-quire).
func Presets() (names, docs []string) {
	for _, ps := range policyPresets {
		names = append(names, ps.name)
		docs = append(docs, ps.doc)
	}
	return names, docs
}

// Preset returns the named preset policy (see Presets). A preset name
// followed by @N:M (posit8+@2:4) is that preset with the N:M weight
// sparsity on every layer (the key sparsity).
func Preset(name string) (*Policy, error) {
	if p, ok, err := sparsePreset(name); ok {
		return p, err
	}
	find := func(name string) int {
		return slices.IndexFunc(policyPresets, func(ps policyPreset) bool { return ps.name == name })
	}
	i, accum := find(name), -1
	for _, s := range accumSuffixes {
		if base, ok := strings.CutSuffix(name, s.suffix); ok && i < 0 {
			if i = find(base); i >= 0 {
				accum = int(s.accum)
			}
		}
	}
	if i < 0 {
		names, _ := Presets()
		return nil, Error(fmt.Sprintf("unknown preset %q (want %s, optionally with -quire or -per-op, or a .toml file)",
			name, strings.Join(names, ", ")))
	}
	ps := policyPresets[i]
	p := &Policy{Name: name, LossScale: ps.loss}
	for _, s := range ps.settings {
		if err := p.Apply(s); err != nil {
			return nil, fmt.Errorf("policy: preset %s: %w", ps.name, err)
		}
	}
	if accum >= 0 {
		p.Default.Accum = quant.Accumulation(accum)
	}
	return p, nil
}

// Parse returns the policy s names: a preset name (see Presets),
// the path of a TOML policy file (see Read), or one format name
// (see quant.Parse), which every tensor role of every layer then takes.
// Parse is for names a user typed: it may open the file s names, or the
// file of a table:FILE format. ParseName is for names read from files.
func Parse(s string) (*Policy, error) { return parse(s, true) }

// ParseName returns the policy of a preset or format name as Parse does,
// but never opens a file: neither a policy file nor a table:FILE format.
// Plans and other files that come from elsewhere name policies with it.
func ParseName(s string) (*Policy, error) { return parse(s, false) }

func parse(s string, files bool) (*Policy, error) {
	p, err := Preset(s)
	if err == nil {
		return p, nil
	}
	statErr := errors.New("not a file")
	if files {
		_, statErr = os.Stat(s)
	}
	if statErr != nil {
		// Not a file: one format for every tensor role of every layer, or
		// a block format for the three dot-product operands. A format may
		// itself name a file (table:/path/values.txt), so a path separator
		// alone does not make s a policy file.
		if b, berr := quant.ParseBlock(s); berr == nil {
			p := &Policy{Name: b.String()}
			for _, k := range []string{"dot", "err"} {
				if err := p.Set("", k, b.String()); err != nil {
					return nil, err
				}
			}
			return p, nil
		}
		parseFormat := quant.ParseSelfContained
		if files {
			parseFormat = quant.Parse
		}
		f, ferr := parseFormat(s)
		if ferr == nil {
			// A table read from a file is named by its values; the
			// policy keeps the short name the user gave as its label.
			p := &Policy{Name: f.String()}
			if len(p.Name) > len(s) {
				p.Name = strings.TrimSpace(s)
			}
			if err := p.Set("", "all", f.String()); err != nil {
				return nil, err
			}
			return p, nil
		}
		if !files || !strings.HasSuffix(s, ".toml") && !strings.ContainsRune(s, os.PathSeparator) {
			return nil, fmt.Errorf("%w; nor is it a format: %v", err, ferr)
		}
	}
	f, _, err := regfile.Open(s) // a named pipe would block
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	defer f.Close()
	if p, err = Read(f); err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	return p, nil
}

// ---- TOML ----

// tomlPolicy is the file layout:
//
//	name = "my-policy"    # optional label
//	preset = "posit8+"    # optional: start from a preset
//	tanh = "pwl:3"        # optional: the generator's output tanh (see Policy.Tanh)
//	prefer = ["bf16"]     # optional: settles promotions (see Policy.Prefer)
//
//	[loss_scale]          # optional; replaces the preset's
//	scale = 1024.0
//	dynamic = true
//
//	[default]             # any subset of the layer keys
//	weight = "posit(8,1,scale=4)"
//
//	[[layer]]             # overrides, applied in file order
//	match = "G/out*"
//	out = "posit(16,1)"
//
// A checkpoint's policy ends with a [promoted] table of layer names and
// formats (see Policy.Record). Layer keys: weight act out err wgrad accum
// accum_format rounding, the
// whole-step roles other master grad moment1 moment2 and their
// <role>_rounding, and the shorthands all, dot, moments and
// moments_rounding, which apply first.
type tomlPolicy struct {
	Name      string         `toml:"name,omitempty"`
	Preset    string         `toml:"preset,omitempty"`
	Tanh      string         `toml:"tanh,omitempty"`
	LossScale *tomlLossScale `toml:"loss_scale,omitempty"`
	Default   *tomlLayer     `toml:"default,omitempty"`
	Layer     []tomlLayer    `toml:"layer,omitempty"`

	Prefer   []string          `toml:"prefer,omitempty"`
	Promoted map[string]string `toml:"promoted,omitempty"`
}

type tomlLossScale struct {
	Scale   float64 `toml:"scale"`
	Dynamic bool    `toml:"dynamic"`
}

type tomlLayer struct {
	Match       string `toml:"match,omitempty"`
	All         string `toml:"all,omitempty"`
	Dot         string `toml:"dot,omitempty"`
	Weight      string `toml:"weight,omitempty"`
	Act         string `toml:"act,omitempty"`
	Out         string `toml:"out,omitempty"`
	Err         string `toml:"err,omitempty"`
	WGrad       string `toml:"wgrad,omitempty"`
	Accum       string `toml:"accum,omitempty"`
	AccumFormat string `toml:"accum_format,omitempty"`
	Rounding    string `toml:"rounding,omitempty"`

	Moments         string `toml:"moments,omitempty"`
	MomentsRounding string `toml:"moments_rounding,omitempty"`
	Other           string `toml:"other,omitempty"`
	Master          string `toml:"master,omitempty"`
	Grad            string `toml:"grad,omitempty"`
	Moment1         string `toml:"moment1,omitempty"`
	Moment2         string `toml:"moment2,omitempty"`
	OtherRounding   string `toml:"other_rounding,omitempty"`
	MasterRounding  string `toml:"master_rounding,omitempty"`
	GradRounding    string `toml:"grad_rounding,omitempty"`
	Moment1Rounding string `toml:"moment1_rounding,omitempty"`
	Moment2Rounding string `toml:"moment2_rounding,omitempty"`

	tomlSparse // sparsity, grad_sparsity, score, fixed_after (sparsity.go)
}

// settings returns the table's (key, value) pairs in application order.
func (t *tomlLayer) settings() [][2]string {
	var s [][2]string
	for _, kv := range [][2]string{
		{"all", t.All}, {"dot", t.Dot}, {"weight", t.Weight}, {"act", t.Act}, {"out", t.Out}, {"err", t.Err},
		{"wgrad", t.WGrad}, {"accum", t.Accum}, {"accum_format", t.AccumFormat}, {"rounding", t.Rounding},
		{"moments", t.Moments}, {"moments_rounding", t.MomentsRounding},
		{"other", t.Other}, {"master", t.Master}, {"grad", t.Grad}, {"moment1", t.Moment1}, {"moment2", t.Moment2},
		{"other_rounding", t.OtherRounding}, {"master_rounding", t.MasterRounding}, {"grad_rounding", t.GradRounding},
		{"moment1_rounding", t.Moment1Rounding}, {"moment2_rounding", t.Moment2Rounding},
	} {
		if kv[1] != "" {
			s = append(s, kv)
		}
	}
	return append(s, t.tomlSparse.settings()...)
}

func (t *tomlLayer) setKey(k int, v string) {
	*[...]*string{&t.Weight, &t.Act, &t.Out, &t.Err, &t.WGrad, &t.Accum, &t.AccumFormat, &t.Rounding,
		&t.Other, &t.Master, &t.Grad, &t.Moment1, &t.Moment2,
		&t.OtherRounding, &t.MasterRounding, &t.GradRounding, &t.Moment1Rounding, &t.Moment2Rounding}[k] = v
}

// Read reads a TOML policy (see WriteTOML for an example). Unknown
// keys are errors that name the key; a file over tomlsafe's size or
// nesting limits is an error before it is decoded.
func Read(r io.Reader) (*Policy, error) {
	var t tomlPolicy
	md, err := tomlsafe.Decode(r, &t) // within its size and depth limits
	if err != nil {
		return nil, fmt.Errorf("policy: policy file: %w", err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, Error(fmt.Sprintf("unknown key %q in policy file", u[0].String()))
	}
	p := &Policy{}
	if t.Preset != "" {
		if p, err = Preset(t.Preset); err != nil {
			return nil, err
		}
	}
	if t.Name != "" {
		p.Name = t.Name
	}
	if t.Tanh != "" {
		if err := p.setTanh("", t.Tanh); err != nil {
			return nil, err
		}
	}
	if err := p.readPromote(&t); err != nil {
		return nil, err
	}
	if t.LossScale != nil {
		s := t.LossScale.Scale
		if s < 0 || math.IsInf(s, 0) || math.IsNaN(s) || (s == 0 && t.LossScale.Dynamic) {
			return nil, Error(fmt.Sprintf("loss_scale.scale = %v: want a positive finite number (0: no loss scaling)", s))
		}
		p.LossScale = LossScale{Scale: s, Dynamic: t.LossScale.Dynamic}
	}
	if t.Default != nil {
		if t.Default.Match != "" {
			return nil, Error("[default] takes no match key")
		}
		for _, kv := range t.Default.settings() {
			if err := p.set("", kv[0], kv[1], false); err != nil {
				return nil, fmt.Errorf("[default]: %w", err)
			}
		}
	}
	for i, l := range t.Layer {
		if l.Match == "" {
			return nil, Error(fmt.Sprintf("[[layer]] %d has no match key", i+1))
		}
		for _, kv := range l.settings() {
			if err := p.set(l.Match, kv[0], kv[1], false); err != nil {
				return nil, fmt.Errorf("[[layer]] %d (match %q): %w", i+1, l.Match, err)
			}
		}
	}
	return p, nil
}

// WriteTOML writes p as a self-contained TOML file (every default field
// spelled out, no preset reference), which Read reads back into a
// policy with the same String.
func (p *Policy) WriteTOML(w io.Writer) error {
	t := tomlPolicy{Name: p.Name, Tanh: p.Tanh, Default: &tomlLayer{}}
	if p.LossScale != (LossScale{}) {
		t.LossScale = &tomlLossScale{Scale: p.LossScale.Scale, Dynamic: p.LossScale.Dynamic}
	}
	p.writePromote(&t)
	for k := range numKeys {
		if k >= firstStepKey && *roleField(&p.Default, k) == (nn.Quantizer{}) && (k != keyOther || !p.Default.OtherNone) {
			continue // float32, nearest: as a file without the key says
		}
		t.Default.setKey(k, fieldString(&p.Default, k))
	}
	t.Default.tomlSparse = sparseTOML(&p.Default.Sparsity, defaultSparseSet(&p.Default.Sparsity))
	for _, o := range p.overrides {
		l := tomlLayer{Match: o.match}
		for k := range numKeys {
			if o.set[k] {
				l.setKey(k, fieldString(&o.lf, k))
			}
		}
		l.tomlSparse = sparseTOML(&o.sp.s, o.sp.set)
		t.Layer = append(t.Layer, l)
	}
	if _, err := io.WriteString(w, "# positgan quantization policy\n"); err != nil {
		return err
	}
	return toml.NewEncoder(w).Encode(t)
}

// String returns p as TOML (see WriteTOML).
func (p *Policy) String() string {
	var b bytes.Buffer
	if err := p.WriteTOML(&b); err != nil {
		return "policy: " + err.Error()
	}
	return b.String()
}
