#!/usr/bin/env python3
"""png-ink-rows.py PNG X0 X1: the runs of pixel rows holding ink (a pixel
darker than light grey) within columns X0..X1 of an 8-bit RGB or RGBA PNG,
one "TOP BOTTOM" line per run (rows counted from the image's top, 0-based),
after a "SIZE WIDTH HEIGHT" line; runs fewer than 20 blank rows apart are
one (the gaps between a rotated label's letters and words). The figure tests read where the rotated
y-axis labels of a figure end (tests/bats/exp_legible.bats); the standard
library alone (zlib), as the figure tests may not have an image library."""
import struct
import sys
import zlib


def rows(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                sys.exit(f"{path}: only 8-bit RGB/RGBA, not interlaced")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(line)
        prev = line
    return w, h, bpp, out


def main():
    path, x0, x1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w, h, bpp, img = rows(path)
    print(f"SIZE {w} {h}")
    runs = []
    for y in range(h):
        if any(min(img[y][x * bpp:x * bpp + 3]) < 160 for x in range(x0, min(x1, w - 1) + 1)):
            if runs and y - runs[-1][1] <= 20:
                runs[-1][1] = y
            else:
                runs.append([y, y])
    for top, bottom in runs:
        print(f"{top} {bottom}")


main()
