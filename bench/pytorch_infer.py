#!/usr/bin/env python3
"""Time one image through a published-size generator in PyTorch, to compare
with positgan's BenchmarkTorchInference (models/bench_pytorch_test.go).

  esrgan    ESRGAN's RRDBNet x4 (BasicSR's definition): 64 features, 23
            RRDBs, growth 32, on a 128x128 input (a 512x512 output)
  cyclegan  pytorch-CycleGAN-and-pix2pix's ResnetGenerator resnet_9blocks,
            ngf 64, instance norm, on a 256x256 input

Both in evaluation mode under torch.no_grad(), float32, with PyTorch's
default initialisation (seeded), on one thread (torch.set_num_threads(1);
pin the process to one core with taskset for a one-core figure).

Usage: /usr/bin/python3 bench/pytorch_infer.py --model esrgan|cyclegan [--runs 3]

Prints one line: MODEL, the median wall ms and the median CPU ms of a
forward pass over --runs runs after one warm-up run, and the process's peak
resident set size in MB (VmHWM, which includes the torch library itself, as
the Go figure includes its runtime). Exits with status 0 and a message when
torch is not installed.
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
    print("pytorch_infer.py: torch is not installed (Debian: apt-get install python3-torch); skipping")
    sys.exit(0)


class RDB(nn.Module):
    def __init__(self, nf, gc):
        super().__init__()
        for j in range(5):
            setattr(self, "conv%d" % (j + 1), nn.Conv2d(nf + j * gc, gc if j < 4 else nf, 3, 1, 1))
        self.lrelu = nn.LeakyReLU(0.2, True)

    def forward(self, x):
        feats = [x]
        for j in range(4):
            feats.append(self.lrelu(getattr(self, "conv%d" % (j + 1))(torch.cat(feats, 1))))
        return x + 0.2 * self.conv5(torch.cat(feats, 1))


class RRDB(nn.Module):
    def __init__(self, nf, gc):
        super().__init__()
        self.rdb1, self.rdb2, self.rdb3 = RDB(nf, gc), RDB(nf, gc), RDB(nf, gc)

    def forward(self, x):
        return x + 0.2 * self.rdb3(self.rdb2(self.rdb1(x)))


class RRDBNet(nn.Module):
    def __init__(self, nf=64, nb=23, gc=32):
        super().__init__()
        self.conv_first = nn.Conv2d(3, nf, 3, 1, 1)
        self.body = nn.Sequential(*[RRDB(nf, gc) for _ in range(nb)])
        self.conv_body = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_up1 = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_up2 = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_hr = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_last = nn.Conv2d(nf, 3, 3, 1, 1)
        self.lrelu = nn.LeakyReLU(0.2, True)

    def forward(self, x):
        feat = self.conv_first(x)
        feat = feat + self.conv_body(self.body(feat))
        feat = self.lrelu(self.conv_up1(F.interpolate(feat, scale_factor=2, mode="nearest")))
        feat = self.lrelu(self.conv_up2(F.interpolate(feat, scale_factor=2, mode="nearest")))
        return self.conv_last(self.lrelu(self.conv_hr(feat)))


class ResnetBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.conv_block = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3), nn.InstanceNorm2d(dim), nn.ReLU(True),
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3), nn.InstanceNorm2d(dim))

    def forward(self, x):
        return x + self.conv_block(x)


def resnet_generator(nc=3, ngf=64, blocks=9):
    m = [nn.ReflectionPad2d(3), nn.Conv2d(nc, ngf, 7), nn.InstanceNorm2d(ngf), nn.ReLU(True)]
    for i in range(2):
        mult = 2 ** i
        m += [nn.Conv2d(ngf * mult, ngf * mult * 2, 3, 2, 1), nn.InstanceNorm2d(ngf * mult * 2), nn.ReLU(True)]
    m += [ResnetBlock(ngf * 4) for _ in range(blocks)]
    for i in range(2):
        mult = 2 ** (2 - i)
        m += [nn.ConvTranspose2d(ngf * mult, ngf * mult // 2, 3, 2, 1, output_padding=1),
              nn.InstanceNorm2d(ngf * mult // 2), nn.ReLU(True)]
    m += [nn.ReflectionPad2d(3), nn.Conv2d(ngf, nc, 7), nn.Tanh()]
    return nn.Sequential(*m)


def peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, choices=["esrgan", "cyclegan"])
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(1)
    if a.model == "esrgan":
        net, x = RRDBNet(), torch.rand(1, 3, 128, 128)
    else:
        net, x = resnet_generator(), torch.rand(1, 3, 256, 256) * 2 - 1
    net.eval()
    wall, cpu = [], []
    with torch.no_grad():
        net(x)  # warm-up
        for _ in range(a.runs):
            w0, c0 = time.perf_counter(), time.process_time()
            net(x)
            wall.append(1000 * (time.perf_counter() - w0))
            cpu.append(1000 * (time.process_time() - c0))
    print(f"{a.model} wall-ms {statistics.median(wall):.0f} cpu-ms {statistics.median(cpu):.0f} peak-RSS-MB {peak_rss_mb():.0f}")


if __name__ == "__main__":
    main()
