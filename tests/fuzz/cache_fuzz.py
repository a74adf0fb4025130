"""Cache-entry fuzzing, run in its own process by test_fuzz_cache.py (a crash is an exit by signal).

Usage: python cache_fuzz.py BINARY GMON N_RAW N_VALUE SEED; prints one JSON line of counts.
Raw: an entry file with flipped bits / truncation / extension (the checksum path). Value: the
decoded value with one node replaced or removed, stored again with a valid checksum (the shape
path). Whatever `load` returns is then used as the server or CLI would use it; an exception there
means a wrongly shaped value got through ("lie").
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: tests/ for its helpers
from binaries import dwarf_index, line_table, lines_at_path, open_elf
from gmonlens.common.options import AnalysisOptions
from gmonlens.dwarf.declarations import DwarfIndex
from gmonlens.dwarf.line_table import LineTable
from gmonlens.dwarf.scopes import FunctionScopes, function_scopes
from gmonlens.load import diskcache
from gmonlens.load.loader import _static_calls_entry, load_profile
from gmonlens.load.program import _lines_entry
from gmonlens.output.report import ReportOptions, render_text
from gmonlens.output.report_json import to_json
from gmonlens_ide.cache_entries import _decode_profile, _encode_profile

ODD: list[Any] = [0, -1, 2**70, 1.5, "", "x", None, [], (), {}, b"\xff", [1, 2], (1,), {"0": []}, True]


def entries(binary: str, gmon: str) -> dict[str, tuple[Any, Callable[[Any], Any], Callable[[Any], None]]]:
    """kind -> (plain value, converter, use)."""
    index = dwarf_index(binary)
    for unit in index.units():
        index.decls_of_unit(unit.offset)
    index.prepare_ranges()
    table = line_table(binary)
    scopes = function_scopes(dwarf_index(binary))
    profile = load_profile(binary, [gmon], AnalysisOptions(static_call_graph=True))
    addrs = sorted({r.address for r in profile.routines} | {r.address + 3 for r in profile.routines})
    wanted = {r.address for r in profile.routines}

    def use_lines(v: dict[int, tuple[str, int]]) -> None:
        for a in addrs:
            hit = v.get(a)
            if hit:
                f"{hit[0]}:{hit[1] + 1}".encode("utf-8", "surrogateescape")

    def use_table(t: LineTable) -> None:
        for a in addrs:
            t.lookup(a)
            t.run_start(a)

    def use_scopes(s: FunctionScopes) -> None:
        for a in addrs:
            s.name_at(a)
            s.run_start(a)

    def use_dwarf(d: DwarfIndex) -> None:
        for u in d.units():
            for decl in d.decls_of_unit(u.offset):
                _ = (decl.low_pc, decl.name, decl.file, decl.line)
        for a in addrs:
            d.decl_at(a)

    def use_profile(p: Any) -> None:
        render_text(p, ReportOptions())
        json.dumps(to_json(p))

    def use_calls(v: list[tuple[int, int]]) -> None:
        sorted(v)

    return {
        "lines": (lines_at_path(binary, wanted), _lines_entry, use_lines),
        "staticcalls": ([(a, a + 4) for a in sorted(wanted)], _static_calls_entry, use_calls),
        "linetable": (table.to_plain(), LineTable.from_plain, use_table),
        "scopes": ((scopes.bounds, scopes.names), FunctionScopes.from_plain, use_scopes),
        "dwarf": (
            index.export(),
            lambda d: DwarfIndex.from_export(binary, d, open_elf(binary).with_budget),
            use_dwarf,
        ),
        "profile": (_encode_profile(profile), _decode_profile, use_profile),
    }


def mutate_value(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """`value` with one node (at a random depth) replaced by an odd value, or an item removed."""
    if isinstance(value, (list, tuple)) and value and (depth < 6 and rng.random() < 0.8):
        items = list(value)
        k = rng.randrange(len(items))
        if rng.random() < 0.1:
            del items[k]
        else:
            items[k] = mutate_value(rng, items[k], depth + 1)
        return type(value)(items)
    if isinstance(value, dict) and value and depth < 6 and rng.random() < 0.8:
        out = dict(value)
        k = rng.choice(list(out))
        if rng.random() < 0.1:
            del out[k]
        elif rng.random() < 0.1:
            out[rng.choice(ODD[:6])] = out.pop(k)
        else:
            out[k] = mutate_value(rng, out[k], depth + 1)
        return out
    return rng.choice(ODD)


def main(argv: list[str]) -> int:
    binary, gmon, n_raw, n_value, seed = argv[0], argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    lies: list[str] = []
    key = "cd" * 32
    d = Path(diskcache.cache_dir() or "")
    for kind, (value, convert, use) in entries(binary, gmon).items():
        assert diskcache.store(kind, key, value)
        path = d / f"{kind}-{key}{diskcache.SUFFIX}"
        good = path.read_bytes()
        got = diskcache.load(kind, key, convert)
        assert got is not None, f"{kind}: a good entry was refused"
        use(got)
        for _ in range(n_raw):
            b = bytearray(good)
            how = rng.randrange(3)
            if how == 0:
                for _ in range(rng.randint(1, 8)):
                    b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            elif how == 1:
                del b[rng.randrange(len(b)) :]
            else:
                b += rng.randbytes(rng.randint(1, 64))
            path.write_bytes(bytes(b))
            counts["raw"] += 1
            if diskcache.load(kind, key, convert) is not None:
                lies.append(f"{kind}: a damaged entry was accepted")
        for _ in range(n_value):
            bad = mutate_value(rng, value)
            counts["value"] += 1
            if not diskcache.store(kind, key, bad):
                continue
            got = diskcache.load(kind, key, convert)
            if got is None:
                counts["value-dropped"] += 1
                continue
            counts["value-accepted"] += 1
            try:
                use(got)
            except Exception as e:  # a wrongly shaped value got through
                lies.append(f"{kind}: {type(e).__name__}: {e}"[:200])
    print(json.dumps({"counts": counts, "lies": lies[:10], "n_lies": len(lies)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
