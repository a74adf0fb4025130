"""XWD (what Xvfb's -fbdir framebuffer file holds) -> PNG, for screenshots without ImageMagick."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def xwd_to_png(xwd: bytes) -> bytes:
    """A 24/32-bit TrueColor ZPixmap XWD image as an RGB PNG."""
    (
        header_size,
        _version,
        _fmt,
        depth,
        width,
        height,
        _xoff,
        byte_order,
        _unit,
        _bit_order,
        _pad,
        bpp,
        bytes_per_line,
        _visual,
        red_mask,
        green_mask,
        blue_mask,
        _bits_rgb,
        _cmap_entries,
        ncolors,
    ) = struct.unpack(">20I", xwd[:80])
    if bpp != 32 or depth < 24:
        raise ValueError(f"unsupported XWD: depth {depth}, {bpp} bits per pixel")
    data = xwd[header_size + 12 * ncolors :]
    order = "<" if byte_order == 0 else ">"
    shifts = [(m, (m & -m).bit_length() - 1) for m in (red_mask, green_mask, blue_mask)]
    rows = []
    for y in range(height):
        line = data[y * bytes_per_line : y * bytes_per_line + 4 * width]
        px = struct.unpack(f"{order}{width}I", line)
        row = bytearray(b"\0")
        for p in px:
            row += bytes(((p & m) >> s) & 0xFF for m, s in shifts)
        rows.append(bytes(row))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 6))
        + chunk(b"IEND", b"")
    )


def distinct_colours(xwd: bytes, step: int = 97) -> int:
    """How many different pixel values a sample of the image holds (1 for a blank screen)."""
    header_size, ncolors = struct.unpack(">I", xwd[:4])[0], struct.unpack(">I", xwd[76:80])[0]
    data = xwd[header_size + 12 * ncolors :]
    return len({data[i : i + 4] for i in range(0, len(data) - 4, 4 * step)})


if __name__ == "__main__":
    import sys

    Path(sys.argv[2]).write_bytes(xwd_to_png(Path(sys.argv[1]).read_bytes()))
