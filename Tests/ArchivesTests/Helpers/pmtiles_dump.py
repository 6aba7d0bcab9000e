#!/usr/bin/env python3
"""Reads a PMTiles archive with the PyPI `pmtiles` package (its reader only)
and prints one JSON document: the header, the metadata, and every tile as
"z/x/y" -> SHA-256 of its bytes. The Swift tests compare it with what they wrote."""
import hashlib
import json
import sys

from pmtiles.reader import MmapSource, Reader, all_tiles


def main(path):
    with open(path, "rb") as f:
        source = MmapSource(f)
        reader = Reader(source)
        header = reader.header()
        tiles = {}
        for (z, x, y), data in all_tiles(source):
            key = "%d/%d/%d" % (z, x, y)
            if key in tiles:
                raise SystemExit("tile %s listed twice" % key)
            tiles[key] = hashlib.sha256(data).hexdigest()
            # Reading a tile by its id (root, then leaf) must give the same bytes
            # as the walk; checked for every 50th tile, 40 at most, since each
            # lookup inflates and decodes its directories again.
            if len(tiles) % 50 == 1 and len(tiles) < 2000 and reader.get(z, x, y) != data:
                raise SystemExit("get(%s) differs from the directory walk" % key)
        out = {
            "header": {k: (v.value if hasattr(v, "value") else v) for k, v in header.items()},
            "metadata": reader.metadata(),
            "tiles": tiles,
        }
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
