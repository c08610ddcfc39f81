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
// # Inception-v3 weights
//
// The FID Inception-v3 (pytorch-fid's network, 2048-d pool3 features) is
// here too, but its weights must be supplied by the user as a safetensors
// file holding pytorch-fid's state_dict. Convert them once, where PyTorch
// and the weights are available (this script is documentation; it has not
// been run where positgan is developed):
//
//	# convert_fid_inception.py: pytorch-fid's FID Inception weights to safetensors
//	# pip install torch safetensors
//	# https://github.com/mseitzer/pytorch-fid/releases/download/fid_weights/pt_inception-2015-12-05-6726825d.pth
//	import sys
//	import torch
//	from safetensors.torch import save_file
//
//	src = sys.argv[1] if len(sys.argv) > 1 else "pt_inception-2015-12-05-6726825d.pth"
//	sd = torch.load(src, map_location="cpu")
//	# or: from pytorch_fid.inception import fid_inception_v3; sd = fid_inception_v3().state_dict()
//	keep = {k: v.float().contiguous() for k, v in sd.items()
//	        if not k.startswith(("fc.", "AuxLogits.")) and not k.endswith("num_batches_tracked")}
//	assert len(keep) == 470, len(keep)  # 94 BasicConv2d layers x (conv.weight + 4 batch-norm tensors)
//	save_file(keep, "pt_inception-2015-12-05.safetensors")
//
// and load the result with Load("inception:pt_inception-2015-12-05.safetensors").
package featnet
