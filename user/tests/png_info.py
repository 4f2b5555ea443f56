#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A PNG's size, and whether each colour is in it.

    png_info.py FILE [RRGGBB...]

Prints "WIDTH HEIGHT" then "RRGGBB:yes" or "RRGGBB:no" for each colour
asked: an exact pixel of it (alpha ignored). Reads 8-bit RGB or RGBA,
non-interlaced, as rsvg-convert writes them; nothing else.
"""
import struct
import sys
import zlib


def pixels(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit("unsupported PNG: depth %d colour type %d interlace %d" % (depth, ctype, interlace))
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xff
            elif f == 2:
                line[i] = (line[i] + b) & 0xff
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = pixels(open(sys.argv[1], "rb").read())
    seen = set()
    for line in rows:
        for i in range(0, len(line), bpp):
            seen.add(line[i:i + 3])
    out = ["%d %d" % (w, h)]
    for c in sys.argv[2:]:
        out.append("%s:%s" % (c, "yes" if bytes.fromhex(c) in seen else "no"))
    print(" ".join(out))


main()
