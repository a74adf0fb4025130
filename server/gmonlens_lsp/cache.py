"""On-disk cache of what is costly to recompute, under `$XDG_CACHE_HOME/gmonlens` (default
`~/.cache/gmonlens`), keyed by the binary's identity: real path, size, mtime (ns) and GNU build-id.

Entries are JSON files written atomically (temp file + rename); a missing, foreign or corrupt entry
reads as None. `GMONLENS_CACHE=off` disables the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any

from gmonlens.dwarf import DwarfIndex

FORMAT = 1


def cache_dir() -> str | None:
    if os.environ.get("GMONLENS_CACHE", "").lower() in ("off", "0", "no"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gmonlens")


def build_id(path: str) -> str:
    """The GNU build-id note of an ELF file as hex, "" when absent or unreadable."""
    try:
        from elftools.elf.elffile import ELFFile

        with open(path, "rb") as f:
            elf = ELFFile(f)
            section: Any = elf.get_section_by_name(".note.gnu.build-id")
            if section is None:
                return ""
            for note in section.iter_notes():
                if note["n_type"] == "NT_GNU_BUILD_ID":
                    return str(note["n_desc"])
    except Exception:  # identity falls back to path/size/mtime
        return ""
    return ""


def binary_key(path: str) -> str | None:
    """Identity of the file at `path` (None when it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    ident = f"{os.path.realpath(path)}\0{st.st_size}\0{st.st_mtime_ns}\0{build_id(path)}"
    return hashlib.sha256(ident.encode()).hexdigest()[:32]


def _entry(kind: str, key: str) -> str | None:
    d = cache_dir()
    return os.path.join(d, f"{kind}-{key}.json") if d else None


def read(kind: str, key: str) -> dict[str, Any] | None:
    path = _entry(kind, key)
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
        return None
    return data


def write(kind: str, key: str, payload: dict[str, Any]) -> bool:
    path = _entry(kind, key)
    if path is None:
        return False
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "key": key, **payload}, f, separators=(",", ":"))
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def load_dwarf(binary: str) -> tuple[DwarfIndex, str | None, bool]:
    """(index, cache key, whether it came complete from the cache)."""
    key = binary_key(binary)
    if key is not None:
        data = read("dwarf", key)
        if data is not None:
            try:
                return DwarfIndex.from_export(binary, data["index"]), key, True
            except (KeyError, TypeError, ValueError):
                pass
    return DwarfIndex(binary), key, False


def save_dwarf(index: DwarfIndex, key: str | None) -> bool:
    if key is None:
        return False
    return write("dwarf", key, {"binary": index.path, "index": index.export()})


def load_line_table(binary: str) -> Any:
    """The binary's `LineTable`, from the cache when its identity matches, else decoded (and saved)."""
    from gmonlens.linetable import LineTable

    key = binary_key(binary)
    if key is not None:
        data = read("lines", key)
        if data is not None:
            try:
                return LineTable(
                    tuple(data["addresses"]), tuple((f, ln) for f, ln in data["rows"]), tuple(data["files"])
                )
            except (KeyError, TypeError, ValueError):
                pass
    table = LineTable.from_elf(binary)
    if key is not None:
        write("lines", key, {"addresses": list(table.addresses), "rows": [list(r) for r in table.rows],
                             "files": list(table.files)})  # fmt: skip
    return table
