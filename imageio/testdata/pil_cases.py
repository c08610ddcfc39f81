"""Writes test images with PIL (and cjpeg when present) into a folder,
then PIL's Image.open(f).convert("RGB") of each as f + ".rgb": a line
"W H" then W*H*3 bytes. imageio's tests compare their decoding with it.

usage: python3 pil_cases.py DIR
"""
import os
import random
import shutil
import subprocess
import sys

from PIL import Image, ImageOps


def picture(w, h, seed):
    """A photo-like test picture: smooth gradients, sharp edges, noise."""
    rnd = random.Random(seed)
    im = Image.new("RGB", (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            r = (x * 255) // max(w - 1, 1)
            g = (y * 255) // max(h - 1, 1)
            b = 255 if ((x // 5) + (y // 3)) % 2 else 30
            n = rnd.randint(-40, 40)
            px[x, y] = (min(max(r + n, 0), 255), min(max(g - n, 0), 255), min(max(b + n // 2, 0), 255))
    return im


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = []
    sizes = [(37, 29), (64, 48), (16, 16), (3, 5), (1, 1), (2, 9), (5, 2), (121, 67)]
    for i, (w, h) in enumerate(sizes):
        im = picture(w, h, i)
        for sub, tag in [(0, "444"), (1, "422"), (2, "420")]:
            for q in (95, 75):
                for prog in (False, True):
                    name = f"pil_{w}x{h}_{tag}_q{q}{'_prog' if prog else ''}.jpg"
                    im.save(os.path.join(out, name), quality=q, subsampling=sub, progressive=prog)
                    cases.append(name)
        name = f"pil_{w}x{h}_gray.jpg"
        im.convert("L").save(os.path.join(out, name), quality=90)
        cases.append(name)
    # cjpeg: restart intervals, 4:4:0 and 4:1:1, non-interleaved
    # progressive scans with restarts, arithmetic coding left out.
    cjpeg = shutil.which("cjpeg")
    if cjpeg:
        src = os.path.join(out, "src.ppm")
        picture(77, 45, 99).save(src)
        for args, name in [
            (["-sample", "2x2", "-restart", "1"], "cj_420_rst1.jpg"),
            (["-sample", "2x1", "-restart", "3B"], "cj_422_rst3b.jpg"),
            (["-sample", "1x2"], "cj_440.jpg"),
            (["-sample", "1x2", "-progressive"], "cj_440_prog.jpg"),
            (["-sample", "4x1"], "cj_411.jpg"),
            (["-sample", "2x2", "-progressive", "-restart", "2B"], "cj_420_prog_rst.jpg"),
            (["-sample", "1x1", "-optimize", "-quality", "100"], "cj_444_q100.jpg"),
            (["-rgb"], "cj_rgb.jpg"),
            (["-grayscale", "-progressive"], "cj_gray_prog.jpg"),
        ]:
            subprocess.run([cjpeg] + args + ["-outfile", os.path.join(out, name), src], check=True)
            cases.append(name)
        os.remove(src)
    # PNG modes.
    base = picture(23, 19, 7)
    png = {
        "png_rgb.png": base,
        "png_rgba.png": base.convert("RGBA"),
        "png_l.png": base.convert("L"),
        "png_la.png": base.convert("LA"),
        "png_p.png": base.convert("P", palette=Image.ADAPTIVE, colors=50),
        "png_1.png": base.convert("1"),
    }
    ga = base.convert("RGBA")
    ga.putalpha(Image.linear_gradient("L").resize(base.size))
    png["png_rgba_alpha.png"] = ga
    for name, im in png.items():
        im.save(os.path.join(out, name))
        cases.append(name)
    # 16-bit gray (mode I;16): values below and above 255.
    i16 = Image.new("I;16", (11, 7))
    i16.putdata([(k * 997) % 65536 for k in range(77)])
    i16.save(os.path.join(out, "png_i16.png"))
    cases.append("png_i16.png")
    # CMYK (PIL writes Adobe's inverted convention), 4:4:4 and
    # progressive.
    for prog in (False, True):
        name = f"pil_cmyk{'_prog' if prog else ''}.jpg"
        picture(29, 17, 3).convert("CMYK").save(os.path.join(out, name), quality=90, progressive=prog)
        cases.append(name)
    # EXIF orientations 2..8: PIL's Image.open ignores them (the .rgb);
    # ImageOps.exif_transpose applies them (the .upright.rgb).
    for o in range(2, 9):
        name = f"exif_o{o}.jpg"
        exif = Image.Exif()
        exif[0x0112] = o
        picture(13, 7, o).save(os.path.join(out, name), quality=95, subsampling=0, exif=exif)
        cases.append(name)
        up = ImageOps.exif_transpose(Image.open(os.path.join(out, name))).convert("RGB")
        with open(os.path.join(out, name + ".upright.rgb"), "wb") as f:
            f.write(f"{up.width} {up.height}\n".encode())
            f.write(up.tobytes())
    # Files the Go test wrote first (16-bit RGB and gray+alpha PNGs, which
    # PIL cannot write).
    cases += sorted(f for f in os.listdir(out) if f.startswith("go_") and not f.endswith(".rgb"))
    for name in cases:
        im = Image.open(os.path.join(out, name)).convert("RGB")
        with open(os.path.join(out, name + ".rgb"), "wb") as f:
            f.write(f"{im.width} {im.height}\n".encode())
            f.write(im.tobytes())
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
