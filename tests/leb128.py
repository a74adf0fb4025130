"""LEB128 encoders for the tests that build DWARF bytes (the decoders under test are the engine's)."""

from __future__ import annotations


def uleb(n: int) -> bytes:
    """`n` >= 0 as unsigned LEB128."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def sleb(n: int) -> bytes:
    """`n` as signed LEB128."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        done = (n == 0 and not byte & 0x40) or (n == -1 and byte & 0x40)
        out.append(byte | (0 if done else 0x80))
        if done:
            return bytes(out)
