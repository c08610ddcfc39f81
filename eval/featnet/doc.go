// Package featnet provides the feature networks that eval's Fréchet
// distance is computed on, and trains the ones that can be trained here.
//
// Inception-v3 weights cannot be downloaded on the machines positgan is
// built for, so the default feature networks are LeNet-5 classifiers that
// positgan trains itself, on MNIST and on Fashion-MNIST; their 84-d
// penultimate activations give a domain FID. Such a number is not
// comparable with the Inception FID of the literature, so it always
// carries the network's name: MetricName gives "FID (LeNet-MNIST)".
//
// An Extractor takes images as float32 NCHW data in [-1, 1], the
// convention of package datasets, and writes one row of float64 features
// per image, the layout eval.StatsOf wants:
//
//	e, err := featnet.Load("lenet-mnist") // or "lenet-fashion", "lenet:FILE", "inception:FILE"
//	feats, err := featnet.FeaturesOf(e, set, 100) // *mat.Dense, one row per image
//	st, err := eval.StatsOf(feats)
//	fmt.Println(featnet.MetricName(e), fid)
//
// Feature networks are registered by name, as models are in package
// models: Load opens the one a spec names, Networks lists them, and a new
// network is one file whose init function calls Register.
//
// # Inception-v3 weights
//
// The FID Inception-v3 (pytorch-fid's network, 2048-d pool3 features) is
// here too, but its weights must be supplied by the user: pytorch-fid's
// own pt_inception-2015-12-05-6726825d.pth (from its GitHub release, or
// ~/.cache/torch/hub/checkpoints/ where pytorch-fid has run) is read as it
// is, and so is a safetensors file of the same state_dict, under either
// key layout (fid_inception_v3's Mixed_5b.* or the InceptionV3 wrapper's
// blocks.N.M.*):
//
//	e, err := featnet.Load("inception:pt_inception-2015-12-05-6726825d.pth")
package featnet
