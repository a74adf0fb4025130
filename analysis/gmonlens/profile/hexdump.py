"""A gmon.out recovered from a hex dump transcript (`gmonlens report --hexdump FILE`): firmware
without a file system prints its profile on a serial console, and the transcript is all there is.

Pure: the transcript's text in, the file's bytes out. The dialects read (each line: an offset,
then bytes, then maybe the bytes as text), with anything else on the console skipped (prompts,
log lines, the command itself):
- NuttX's `hexdump FILE`: a `FILE at OFFSET:` heading per chunk, then `OFF: xx xx ... text`,
  each line's offset relative to the chunk's (`0000: 67 6d 6f 6e ...  gmon....`);
- `hexdump -C` / `od -A x -t x1z`: `OFFSET  xx xx ...  |text|` (a `*` line repeats the line before
  up to the next offset, as `hexdump` abbreviates runs of equal lines);
- `xxd`: `OFFSET: xxxx xxxx ...  text` (bytes in groups of two or more, each an even number of
  hex digits).
The text column of a line is told from its bytes by its length: as many characters as the line
has bytes. Lines are placed at their offsets; a gap (a line lost on the console) or two lines
disagreeing about a byte is an error naming the offsets, one line.
"""

from __future__ import annotations

import re
from collections import Counter

from gmonlens.common.errors import GmonFormatError

MAX_DUMP_BYTES = 64 << 20  # what a transcript may decode to (a profile, not a memory image)
_HEADING = re.compile(r"^\s*\S*\s+at\s+([0-9A-Fa-f]+):\s*$")  # NuttX: "/tmp/gmon.out at 00000400:"
_LINE = re.compile(r"^\s*(?:0[xX])?([0-9A-Fa-f]{4,16})(:?)\s+(\S.*)$")
_REPEAT = re.compile(r"^\s*\*\s*$")
_HEX = re.compile(r"^(?:[0-9A-Fa-f]{2})+$")


def _line_bytes(rest: str, text_column: bool) -> tuple[bytes, bool] | None:
    """The bytes of one dump line after its offset, and whether it has a text column; None when
    it holds no bytes (console noise that happens to start with hex digits). Where every token
    could be a byte, the line has a text column if the transcript's lines have one (`text_column`)
    and its last tokens then make one exactly as long as the bytes before them."""
    if "|" in rest:  # hexdump -C: |text|
        rest, text_column = rest[: rest.index("|")], False
    spans = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", rest)]
    hexes = 0
    while hexes < len(spans) and _HEX.match(spans[hexes][2]) and len(spans[hexes][2]) <= 16:
        hexes += 1
    if not hexes:
        return None
    has_text = hexes < len(spans) or text_column
    taken = b""
    for i in range(hexes):
        taken += bytes.fromhex(spans[i][2])
        tail = rest[spans[i][1] :]
        if has_text and any(tail[:k] == " " * k and len(tail) - k == len(taken) for k in (1, 2, 3)):
            return taken, True
    if hexes < len(spans):  # the text column began with a word that is not hex: all were bytes
        return b"".join(bytes.fromhex(t) for _, _, t in spans[:hexes]), True
    return taken, False


def decode_hexdump(text: str, path: str) -> bytes:
    """The file a hex dump transcript shows (module docstring); GmonFormatError (one line naming
    `path`) when it shows none, has a gap, contradicts itself or claims more than MAX_DUMP_BYTES."""
    entries: list[tuple[int, bytes, bool]] = []  # (offset, bytes, after a `*` line)
    base = 0
    repeat = False
    text_column = False
    for raw in text.splitlines():
        raw = raw.rstrip("\r")
        heading = _HEADING.match(raw)
        if heading:
            base, repeat = int(heading[1], 16), False
            continue
        if _REPEAT.match(raw):
            repeat = bool(entries)
            continue
        m = _LINE.match(raw)
        found = _line_bytes(m[3], text_column) if m else None
        if m is None or found is None:
            continue
        data, has_text = found
        text_column = text_column or has_text
        entries.append((base + int(m[1], 16), data, repeat))
        repeat = False
    lines = len(entries)
    out = bytearray()
    known = bytearray()  # 1 where `out` holds a byte a line gave
    widths = Counter(len(d) for _, d, _ in entries)
    width = widths.most_common(1)[0][0] if widths else 0
    for k, (at, data, after_repeat) in enumerate(entries):
        nxt = entries[k + 1][0] if k + 1 < len(entries) else None
        if len(data) > width and nxt is not None and at < nxt < at + len(data):
            # text taken for bytes at a long line's end: the next line says where it ends
            data = data[: nxt - at]
        if after_repeat:  # `*`: the line before again, up to this one
            prev_at, prev, _ = entries[k - 1]
            prev = prev[: at - prev_at] if at - prev_at < len(prev) else prev
            fill = prev_at + len(prev)
            while prev and fill + len(prev) <= at:
                _put(out, known, fill, prev, path)
                fill += len(prev)
        _put(out, known, at, data, path)
    if not lines:
        raise GmonFormatError(path, "no hex dump lines (offset, then bytes) found in this transcript")
    gap = known.find(0)
    if gap >= 0:
        end = gap
        while end < len(known) and not known[end]:
            end += 1
        raise GmonFormatError(
            path, f"hex dump has no bytes at 0x{gap:x}-0x{end - 1:x} (a line lost on the console?)"
        )
    return bytes(out)


def _put(out: bytearray, known: bytearray, at: int, data: bytes, path: str) -> None:
    end = at + len(data)
    if end > MAX_DUMP_BYTES:
        raise GmonFormatError(
            path, f"hex dump claims bytes at 0x{at:x}, past the {MAX_DUMP_BYTES >> 20} MiB a profile may take"
        )
    if end > len(out):
        out.extend(bytes(end - len(out)))
        known.extend(bytes(end - len(known)))
    for k, b in enumerate(data):
        if known[at + k] and out[at + k] != b:
            raise GmonFormatError(
                path, f"hex dump gives two values for the byte at 0x{at + k:x} ({out[at + k]:02x}, {b:02x})"
            )
    out[at:end] = data
    known[at:end] = b"\1" * len(data)
