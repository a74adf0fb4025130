"""Disk-cache encodings compared on real entries (issue 9): load time per encoder, best of 7.

Usage: ``.venv/bin/python bench/cache_codec.py [CACHE_DIR]`` (default: $XDG_CACHE_HOME/gmonlens).
Fill the directory first, e.g. with SQLite (bench/sqlite_prog.py) through the server's warm-up:
``XDG_CACHE_HOME=/tmp/c .venv/bin/python -m gmonlens_ide.warmup BINARY GMON``. orjson and msgpack
are measured when importable (``pip install orjson msgpack`` in a scratch venv); they are not
dependencies. Decision and figures: analysis/gmonlens/diskcache.py's docstring.
"""

from __future__ import annotations

import glob
import hashlib
import json
import marshal
import os
import sys
import time
from array import array
from collections.abc import Callable
from typing import Any

from gmonlens.load import diskcache


def best(f: Callable[[], object], n: int = 7) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times) * 1000


def jsonable(x: Any) -> Any:
    if isinstance(x, (array, memoryview)):  # line table columns
        return x.tolist()
    if isinstance(x, bytes):  # the DWARF index's packed units
        return x.hex()
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    return x


def row(kind: str, stored: bytes) -> str:
    value = marshal.loads(stored)
    if kind == "linetable":  # stored as arrays; the encoders are compared on the plain lists
        from gmonlens.dwarf.line_table import LineTable

        t = LineTable.from_plain(value)
        value = (t.starts, t.sequences, t.files)
    raw = marshal.dumps(value)
    js = json.dumps(jsonable(value), separators=(",", ":")).encode()
    cells = [f"{kind:10s} {len(raw) / 1e6:5.2f} MB", f"marshal {best(lambda: marshal.loads(raw)):6.1f} ms"]
    cells.append(f"json {best(lambda: json.loads(js)):6.1f} ms")
    try:
        import orjson

        oj = orjson.dumps(jsonable(value))
        cells.append(f"orjson {best(lambda: orjson.loads(oj)):6.1f} ms")
    except ImportError:
        pass
    try:
        import msgpack

        mp = msgpack.packb(value, use_bin_type=True)
        cells.append(f"msgpack {best(lambda: msgpack.unpackb(mp, strict_map_key=False)):6.1f} ms")
    except ImportError:
        pass
    cells.append(f"sha256 {best(lambda: hashlib.sha256(raw).digest()):5.1f} ms")
    return " | ".join(cells)


def _no_file() -> Any:
    from gmonlens.common.errors import ElfError

    raise ElfError("x", "no such file (the index is read from the cache only)")


def converters() -> dict[str, Callable[[Any], Any]]:
    from gmonlens.dwarf.declarations import DwarfIndex
    from gmonlens.dwarf.line_table import LineTable
    from gmonlens.dwarf.scopes import FunctionScopes
    from gmonlens.load.loader import _static_calls_entry
    from gmonlens.load.program import _lines_entry
    from gmonlens_ide.cache_entries import _decode_profile

    return {
        "lines": _lines_entry,
        "staticcalls": _static_calls_entry,
        "linetable": LineTable.from_plain,
        "scopes": FunctionScopes.from_plain,
        "dwarf": lambda d: DwarfIndex.from_export("x", d, _no_file),
        "profile": _decode_profile,
    }


def main(argv: list[str]) -> int:
    d = argv[0] if argv else diskcache.cache_dir()
    if not d:
        print("cache is off", file=sys.stderr)
        return 2
    os.environ["XDG_CACHE_HOME"] = os.path.dirname(os.path.abspath(d))
    conv = converters()
    for path in sorted(glob.glob(os.path.join(d, "*" + diskcache.SUFFIX))):
        with open(path, "rb") as fh:
            raw = fh.read()[diskcache._HEADER.size :]
        kind, key = os.path.basename(path)[: -len(diskcache.SUFFIX)].split("-")
        full = best(lambda: diskcache.load(kind, key, conv[kind]))  # noqa: B023 (called at once)
        print(row(kind, raw) + f" | diskcache.load (header, sha256, marshal, shape check) {full:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
