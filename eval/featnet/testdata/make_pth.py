"""Writes the small state_dicts TestReadPth reads, in torch.save's zip
format (PyTorch >= 1.6) and its legacy format (pytorch-fid's
pt_inception-2015-12-05-6726825d.pth is a torch.save'd state_dict).

usage: python3 make_pth.py DIR
"""
import collections
import os
import sys

import torch

out = sys.argv[1]
sd = collections.OrderedDict()
sd["a.weight"] = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4
sd["blocks.2.0.branch1x1.conv.weight"] = (torch.arange(6, dtype=torch.float32).reshape(2, 3) + 1).t()  # strided view
sd["c.half"] = torch.tensor([0.5, -1.25, 3.0], dtype=torch.float16)
sd["d.double"] = torch.tensor([[1.0 / 3]], dtype=torch.float64)
sd["bn.num_batches_tracked"] = torch.tensor(7)
sd["fc.weight"] = torch.ones(2, 2)
torch.save(sd, os.path.join(out, "small_zip.pth"))
torch.save(sd, os.path.join(out, "small_legacy.pth"), _use_new_zipfile_serialization=False)
