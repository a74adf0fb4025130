"""On-disk cache of what is costly to recompute, under `$XDG_CACHE_HOME/gmonlens` (default
`~/.cache/gmonlens`), keyed by the binary's identity: real path, size, mtime (ns) and GNU build-id.

Entries are JSON (the DWARF index) or pickles (the line table; each computed profile, keyed also
by the profile files' identities and the options), written atomically (temp file + rename); a
missing, foreign or corrupt entry reads as None. `GMONLENS_CACHE=off` disables the cache.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import marshal
import os
import pickle
import tempfile
from collections.abc import Sequence
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


def profile_key(binary: str, profiles: Sequence[str], options: object) -> str | None:
    """Identity of a computed profile: the binary's, each profile file's, the options and the
    engine version."""
    from gmonlens import __version__, model

    bkey = binary_key(binary)
    if bkey is None:
        return None
    shape = ";".join(f"{c.__name__}:" + ",".join(f.name for f in dataclasses.fields(c))
                     for c in (model.Profile, model.Routine, model.Arc, model.Cycle, model.GraphEntry))  # fmt: skip
    parts = [bkey, repr(options), __version__, shape]
    for p in profiles:
        try:
            st = os.stat(p)
        except OSError:
            return None
        parts.append(f"{os.path.realpath(p)}\0{st.st_size}\0{st.st_mtime_ns}")
    return hashlib.sha256("\0\0".join(parts).encode()).hexdigest()[:32]


def read_pickle(kind: str, key: str | None) -> Any:
    """An object written by `write_pickle` (this user's own cache), or None."""
    d = cache_dir()
    if key is None or d is None:
        return None
    try:
        with open(os.path.join(d, f"{kind}-{key}.pickle"), "rb") as f:
            data = pickle.load(f)
    except Exception:  # absent, truncated or from another version: recompute
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
        return None
    return data.get("value")


def write_pickle(kind: str, key: str | None, value: Any) -> bool:
    d = cache_dir()
    if key is None or d is None:
        return False
    try:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            pickle.dump({"format": FORMAT, "key": key, "value": value}, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, os.path.join(d, f"{kind}-{key}.pickle"))
        return True
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return False


def _encode_profile(profile: Any) -> dict[str, Any]:
    """A Profile as plain tuples (marshal-able): one level of dataclass records per field."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(profile):
        value = getattr(profile, f.name)
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            names = [g.name for g in dataclasses.fields(value[0])]
            out[f.name] = (type(value[0]).__name__, tuple(tuple(getattr(v, n) for n in names) for v in value))
        else:
            out[f.name] = value
    return out


def _decode_profile(data: dict[str, Any]) -> Any:
    from gmonlens import model

    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(model.Profile):
        value = data[f.name]
        if (
            isinstance(value, tuple)
            and len(value) == 2
            and isinstance(value[0], str)
            and isinstance(value[1], tuple)
        ):
            cls = getattr(model, value[0])
            value = tuple(cls(*vals) for vals in value[1])
        kwargs[f.name] = value
    return model.Profile(**kwargs)


def _profile_path(key: str) -> str | None:
    d = cache_dir()
    return os.path.join(d, f"profile-{key}.marshal") if d else None


def read_profile(key: str | None) -> Any:
    """A computed `Profile` written by `write_profile`, or None (absent, stale format, corrupt)."""
    path = _profile_path(key) if key else None
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
        if data.get("format") != FORMAT or data.get("key") != key:
            return None
        return _decode_profile(data["profile"])
    except Exception:  # absent, truncated, or written by another model version: recompute
        return None


def write_profile(key: str | None, profile: Any) -> bool:
    path = _profile_path(key) if key else None
    if path is None:
        return False
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        blob = marshal.dumps({"format": FORMAT, "key": key, "profile": _encode_profile(profile)})
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
        return True
    except (OSError, ValueError, TypeError):
        return False


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
    import dataclasses

    from gmonlens.linetable import LineTable

    shape = ",".join(f.name for f in dataclasses.fields(LineTable))
    bkey = binary_key(binary)
    key = hashlib.sha256(f"{bkey}\0{shape}".encode()).hexdigest()[:32] if bkey else None
    table = read_pickle("lines", key)
    if isinstance(table, LineTable):
        return table
    table = LineTable.from_elf(binary)
    write_pickle("lines", key, table)
    return table
