#!/usr/bin/env python3
"""Stitches one floor's PNG tiles at a few zooms into one image (docs/contact-sheet.png).

usage: scripts/contact_sheet.py OUTPUT_DIR SOURCE_ID FLOOR_ID OUT.png [--zooms 18,20] [--tileset png]
                                [--overlay floor_shadows_floor_0]

FLOOR_ID may be any raster pyramid (`outdoors`, `building_outlines_building_1`); --overlay
composites another pyramid's tiles over it (a shadow pyramid over its floor), as a client does.

Needs Pillow (Debian: python3-pil). Tiles missing from the pyramid (blank, never
written) show the checkerboard, so the sheet also shows which tiles exist.
"""
import argparse
import os
import sys

from PIL import Image, ImageDraw


def tiles_of(root, zoom):
    zdir = os.path.join(root, str(zoom))
    tiles = {}
    for x in os.listdir(zdir) if os.path.isdir(zdir) else []:
        for f in os.listdir(os.path.join(zdir, x)):
            if f.endswith(".png"):
                tiles[(int(x), int(f[:-4]))] = os.path.join(zdir, x, f)
    return tiles


def stitch(root, zoom, overlay=None):
    tiles = tiles_of(root, zoom)
    xs = [k[0] for k in tiles]
    ys = [k[1] for k in tiles]
    first = Image.open(next(iter(tiles.values())))
    size = first.size[0]
    w, h = (max(xs) - min(xs) + 1) * size, (max(ys) - min(ys) + 1) * size
    sheet = Image.new("RGBA", (w, h))
    d = ImageDraw.Draw(sheet)
    for y in range(0, h, 16):
        for x in range(0, w, 16):
            d.rectangle([x, y, x + 15, y + 15], fill=(236, 236, 236, 255) if (x // 16 + y // 16) % 2 else (250, 250, 250, 255))
    for (x, y), path in tiles.items():
        t = Image.open(path).convert("RGBA")
        sheet.alpha_composite(t, ((x - min(xs)) * size, (y - min(ys)) * size))
    if overlay:
        # Only where the base pyramid has tiles: the sheet's extent is the base's.
        for (x, y), path in tiles_of(overlay, zoom).items():
            if (x, y) in tiles:
                sheet.alpha_composite(Image.open(path).convert("RGBA"), ((x - min(xs)) * size, (y - min(ys)) * size))
    return sheet, len(tiles)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output")
    ap.add_argument("source")
    ap.add_argument("floor")
    ap.add_argument("out")
    ap.add_argument("--zooms", default="18,20")
    ap.add_argument("--tileset", default="png")
    ap.add_argument("--max-width", type=int, default=2600)
    ap.add_argument("--overlay", help="another pyramid of the venue drawn over this one")
    a = ap.parse_args()
    root = os.path.join(a.output, a.source, a.floor, a.tileset)
    if not os.path.isdir(root):
        sys.exit(f"error: {root}: no such pyramid")
    parts = []
    for z in [int(s) for s in a.zooms.split(",")]:
        overlay = os.path.join(a.output, a.source, a.overlay, a.tileset) if a.overlay else None
        img, n = stitch(root, z, overlay)
        if img.size[0] > a.max_width:
            img = img.resize((a.max_width, int(img.size[1] * a.max_width / img.size[0])), Image.LANCZOS)
        parts.append((z, n, img))
    pad, head = 16, 28
    w = max(p[2].size[0] for p in parts) + 2 * pad
    h = sum(p[2].size[1] + head + pad for p in parts) + pad
    out = Image.new("RGBA", (w, h), (255, 255, 255, 255))
    d = ImageDraw.Draw(out)
    y = pad
    for z, n, img in parts:
        d.text((pad, y + 6), f"{a.source} / {a.floor}{' + ' + a.overlay if a.overlay else ''} / {a.tileset}   z{z}   {n} tiles", fill=(40, 40, 40, 255))
        y += head
        out.alpha_composite(img, (pad, y))
        y += img.size[1] + pad
    out.convert("RGB").save(a.out, optimize=True)
    print(f"wrote {a.out} ({w}×{h})")


if __name__ == "__main__":
    main()
