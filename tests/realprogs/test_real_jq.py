"""jq (C, -O2, PIE; PyPI sdist `jq`, built with its own configure and Makefile): a program whose
routine names macros make (X-macro lists, LIBM_DD(floor) wrappers, a flex scanner's jq_yy prefix,
oniguruma's #define renames) and whose gprof clones fold. Against gprof byte for byte on the
options the issue found differing (-C/-Z with symspecs) and the usual ones; with no configuration
through the server (every flat-profile routine a lens with gprof's figures, hover and call hierarchy
on the hottest and on every macro-made routine); and another program's profile refused."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from e2e.lspclient import open_doc, session, state_of, uri, wait_status

from . import programs
from .zerocheck import Oracle, copy_program, serve_zero_config

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import NATIVE, compare_reports, gmonlens

OPTIONS = [
    (),
    ("-l",),
    ("-A", "-C"),
    ("-z", "-p", "-q"),
    ("-T",),
    ("-Cbuiltin.c",),
    ("-Zjv.c",),
    ("-Zjv_get_kind",),
    ("-m", "3", "-Zbuiltin.c"),
    ("-z", "-Zexecute.c"),
    ("-pf_plus", "-qjq_next"),
]


@pytest.mark.parametrize("args", OPTIONS, ids=lambda a: "_".join(a) or "default")
def test_jq_reports_as_gprof(jq_prog: tuple[programs.RealProgram, Oracle], args: tuple[str, ...],
                             tmp_path: Path) -> None:  # fmt: skip
    prog = jq_prog[0]
    count = programs.routines(prog.binary)
    assert count >= programs.JQ_MIN_ROUTINES, f"jq: only {count} routines (nm T/t symbols)"
    compare_reports(NATIVE, [*args, str(prog.binary), str(prog.gmon)], tmp_path)


def _sources(prog: programs.RealProgram) -> list[Path]:
    dirs = {s.parent for s in prog.sources}
    return [*prog.sources, *sorted(h for d in dirs for h in d.glob("*.h"))]


@pytest.mark.asyncio
async def test_jq_zero_config(jq_prog: tuple[programs.RealProgram, Oracle], tmp_path: Path) -> None:
    prog, oracle = jq_prog
    folder = tmp_path / "ws"
    copy_program(prog.binary, prog.gmon, folder / "build")
    served = await serve_zero_config(
        folder, tmp_path / "cache", oracle, _sources(prog), full=True, hottest=True
    )
    assert served.state == "loaded", served.message
    assert served.routines == oracle.entries
    assert not served.problems, "\n".join(served.problems[:40])


@pytest.mark.asyncio
async def test_jq_macro_made_routines_answer(
    jq_prog: tuple[programs.RealProgram, Oracle], tmp_path: Path
) -> None:
    """Every routine with figures whose name no identifier on its line spells (the oracle's
    `generated`: f_plus from BINOPS, f_floor from LIBM_DD(floor), jq_yylex...) gets a hover naming
    it and a call hierarchy item, at its line."""
    prog, oracle = jq_prog
    flat = {r.name for r in oracle.flat}
    generated = {n: at for n, at in oracle.generated.items() if n in flat}
    assert {"f_plus", "f_floor", "jq_yylex"} <= set(generated), sorted(generated)
    folder = tmp_path / "ws"
    copy_program(prog.binary, prog.gmon, folder / "build")
    problems: list[str] = []
    async with session([folder], tmp_path / "cache", env_extra={"GMONLENS_CACHE": "off"}) as client:
        assert state_of(await wait_status(client, timeout=600)) == "loaded"
        for name, (path, line) in sorted(generated.items()):
            await open_doc(client, path)
            doc = types.TextDocumentIdentifier(uri=uri(path))
            text = path.read_text(errors="replace").splitlines()[line]
            pos = types.Position(line, len(text) - len(text.lstrip()))
            hover: Any = await client.text_document_hover_async(
                types.HoverParams(text_document=doc, position=pos)
            )
            # named in full (bold) or, past the five hottest of a line, in the hover's table
            named = re.compile(rf"(\*\*|\| ){re.escape(name)}( |\*\*|$)", re.M)
            if hover is None or not named.search(hover.contents.value):
                problems.append(
                    f"{name} ({path.name}:{line + 1}): hover {hover and hover.contents.value[:100]!r}"
                )
            items = await client.text_document_prepare_call_hierarchy_async(
                types.CallHierarchyPrepareParams(text_document=doc, position=pos)
            )
            if name not in {i.name for i in items or []}:
                problems.append(f"{name}: call hierarchy {[i.name for i in items or []]}")
    assert not problems, "\n".join(problems)


def test_jq_clones_are_named(jq_prog: tuple[programs.RealProgram, Oracle], tmp_path: Path) -> None:
    """The routines gprof folds clones into say which, and the shares add up to gprof's figures."""
    prog = jq_prog[0]
    r = gmonlens(["--json", str(prog.binary), str(prog.gmon)], tmp_path)
    assert r.returncode == 0, r.err
    doc = json.loads(r.stdout)
    assert doc["folded"], "jq -O2 has clones gprof folds"
    by_id = {x["id"]: x for x in doc["routines"]}
    for f in doc["folded"]:
        owner = by_id.get(f["routine"])
        if owner is not None:
            assert f["calls"] <= owner["calls"] + owner["recursive_calls"], (f, owner)
