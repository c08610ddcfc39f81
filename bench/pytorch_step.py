#!/usr/bin/env python3
"""Time one GAN training step in PyTorch, to compare with positgan.

The models are the ones gan's BenchmarkTrainStep trains (gan/bench_test.go),
at batch 64 on random data, float32, one D and one G update per step with
Adam (lr 2e-4, betas 0.5, 0.999) and the non-saturating BCE loss:

  cgan     the default MNIST CGAN with 2 classes: G 100+2 -> 128 -> 256 -> 512
           -> 1024 -> 784 with the one-hot label concatenated at every layer,
           BN after layers 2-4, LeakyReLU(0.2), tanh; D 784+2 -> 512 -> 512
           -> 512 (labels at every layer, LeakyReLU) and a projection head
           (linear 514 -> 1 plus <embed(y), h>).
  dcgan64  the 28x28 DCGAN with 64 base features: G ConvT 100->128 k7,
           128->64 k4s2 (BN, ReLU), 64->1 k4s2, tanh; D Conv 1->64 k4s2,
           64->128 k4s2 + BN (LeakyReLU 0.2), 128->1 k7. No biases.
  dcgan28  issue 13's DCGAN-28: dcgan64 with G twice as wide (ConvT 100->256
           k7, 256->128 k4s2, 128->1 k4s2); D as dcgan64.

Usage (Debian's python3-torch is for /usr/bin/python3):

  /usr/bin/python3 bench/pytorch_step.py [--threads 1] [--steps 30]

Prints the median and best wall time of a step of each model, and the median
CPU time of the process (steadier on a shared machine), in milliseconds. Exits
with status 0 and a message when torch is not installed.
"""

import argparse
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("pytorch_step.py: torch is not installed (Debian: apt-get install python3-torch); skipping")
    sys.exit(0)

BATCH = 64


class CondLinear(nn.Module):
    """A linear layer on [x, onehot(y)]."""

    def __init__(self, n_in, n_out, classes):
        super().__init__()
        self.fc = nn.Linear(n_in + classes, n_out)

    def forward(self, x, y1h):
        return self.fc(torch.cat([x, y1h], 1))


class CGANG(nn.Module):
    def __init__(self, z=100, classes=2, f=128, img=784):
        super().__init__()
        widths = [f, 2 * f, 4 * f, 8 * f]
        self.fcs = nn.ModuleList()
        self.bns = nn.ModuleList()
        n_in = z
        for i, w in enumerate(widths):
            self.fcs.append(CondLinear(n_in, w, classes))
            self.bns.append(nn.BatchNorm1d(w) if i > 0 else nn.Identity())
            n_in = w
        self.out = CondLinear(n_in, img, classes)

    def forward(self, z, y1h):
        h = z
        for fc, bn in zip(self.fcs, self.bns):
            h = F.leaky_relu(bn(fc(h, y1h)), 0.2)
        return torch.tanh(self.out(h, y1h))


class CGAND(nn.Module):
    def __init__(self, classes=2, f=128, img=784):
        super().__init__()
        self.fcs = nn.ModuleList()
        n_in = img
        for _ in range(3):
            self.fcs.append(CondLinear(n_in, 4 * f, classes))
            n_in = 4 * f
        self.out = CondLinear(n_in, 1, classes)
        self.embed = nn.Linear(classes, n_in, bias=False)

    def forward(self, x, y1h):
        h = x
        for fc in self.fcs:
            h = F.leaky_relu(fc(h, y1h), 0.2)
        return self.out(h, y1h) + (self.embed(y1h) * h).sum(1, keepdim=True)


def dcgan(z=100, f=64, gf=64):
    g = nn.Sequential(
        nn.ConvTranspose2d(z, 2 * gf, 7, 1, 0, bias=False), nn.BatchNorm2d(2 * gf), nn.ReLU(),
        nn.ConvTranspose2d(2 * gf, gf, 4, 2, 1, bias=False), nn.BatchNorm2d(gf), nn.ReLU(),
        nn.ConvTranspose2d(gf, 1, 4, 2, 1, bias=False), nn.Tanh(),
    )
    d = nn.Sequential(
        nn.Conv2d(1, f, 4, 2, 1, bias=False), nn.LeakyReLU(0.2),
        nn.Conv2d(f, 2 * f, 4, 2, 1, bias=False), nn.BatchNorm2d(2 * f), nn.LeakyReLU(0.2),
        nn.Conv2d(2 * f, 1, 7, 1, 0, bias=False),
    )
    return g, d


def make_step(name):
    torch.manual_seed(1)
    if name == "cgan":
        g, d = CGANG(), CGAND()
        real = torch.rand(BATCH, 784) * 2 - 1
        y = torch.randint(0, 2, (BATCH,))
        y1h = F.one_hot(y, 2).float()
        zshape = (BATCH, 100)
        gen = lambda z: g(z, y1h)
        disc = lambda x: d(x, y1h).view(-1)
    elif name in ("dcgan64", "dcgan28"):
        g, d = dcgan(gf=128 if name == "dcgan28" else 64)
        real = torch.rand(BATCH, 1, 28, 28) * 2 - 1
        zshape = (BATCH, 100, 1, 1)
        gen = g
        disc = lambda x: d(x).view(-1)
    else:
        raise SystemExit(f"pytorch_step.py: unknown model {name!r}: want cgan, dcgan64 or dcgan28")
    og = torch.optim.Adam(g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    od = torch.optim.Adam(d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    ones, zeros = torch.ones(BATCH), torch.zeros(BATCH)

    def step():
        fake = gen(torch.randn(zshape))
        od.zero_grad(set_to_none=True)
        loss_d = F.binary_cross_entropy_with_logits(disc(real), ones) + \
            F.binary_cross_entropy_with_logits(disc(fake.detach()), zeros)
        loss_d.backward()
        od.step()
        og.zero_grad(set_to_none=True)
        loss_g = F.binary_cross_entropy_with_logits(disc(fake), ones)
        loss_g.backward()
        og.step()

    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    ap.add_argument("--steps", type=int, default=30, help="timed steps per model")
    ap.add_argument("--models", default="cgan,dcgan64,dcgan28")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s), batch {BATCH}")
    for name in args.models.split(","):
        step = make_step(name)
        for _ in range(3):
            step()
        times, cpus = [], []
        for _ in range(args.steps):
            t0, c0 = time.perf_counter(), time.process_time()
            step()
            times.append((time.perf_counter() - t0) * 1e3)
            cpus.append((time.process_time() - c0) * 1e3)
        print(f"{name:8s} median {statistics.median(times):7.1f} ms/step  best {min(times):7.1f} ms/step"
              f"  cpu median {statistics.median(cpus):7.1f} ms/step")


if __name__ == "__main__":
    main()
