"""The zero-configuration checks: a workspace with no gmonlens.yaml and no settings, served by the
real server, against what GNU gprof prints for the same files."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from e2e.lspclient import _get, open_doc, session, state_of, uri, wait_status

_FLAT = re.compile(
    r"^\s*[\d.]+\s+[\d.]+\s+(?P<self>[\d.]+)\s+(?:(?P<calls>\d+(?:\+\d+)?)\s+[\d.]+\s+[\d.]+\s+)?(?P<name>\S.*?)\s*$"
)
_ENTRY_NAME = re.compile(r"(?P<name>\S+)(?: <cycle \d+>)? \[\d+\]\s*$")
_TITLE = re.compile(r"self (?P<self>[\d.]+) s .*?(?: · (?P<calls>\d+(?:\+\d+)?) calls)?(?: · cycle \d+)?$")


@dataclass(frozen=True)
class FlatRow:
    name: str
    self_s: str  # as gprof prints it
    calls: str  # "" when gprof leaves it blank


@dataclass(frozen=True)
class Oracle:
    flat: list[FlatRow]
    parents: dict[str, list[set[str]]]  # entry name -> its parents' names, per entry of that name
    entries: int  # call-graph primary lines (cycles as a whole not counted)


def gprof_oracle(gprof: str, binary: Path, gmon: Path) -> Oracle:
    out = subprocess.run(
        [gprof, "-b", str(binary), str(gmon)], capture_output=True, text=True, check=True, timeout=300
    ).stdout
    flat_text, _, graph = out.partition("Call graph")
    flat: list[FlatRow] = []
    for line in flat_text.splitlines():
        m = _FLAT.match(line)
        if m and not line.lstrip().startswith("%") and m["name"] not in NO_SOURCE:
            flat.append(FlatRow(m["name"], m["self"], m["calls"] or ""))
    parents: dict[str, list[set[str]]] = {}
    entries = 0
    for block in graph.split("-----------------------------------------------"):
        lines = [ln for ln in block.splitlines() if ln.strip()]
        primary = next((i for i, ln in enumerate(lines) if re.match(r"^\[\d+\]", ln)), None)
        if primary is None or "as a whole>" in lines[primary]:
            continue
        entries += 1
        m = _ENTRY_NAME.search(lines[primary])
        assert m, lines[primary]
        callers = {pm["name"] for ln in lines[:primary] if (pm := _ENTRY_NAME.search(ln))}
        parents.setdefault(m["name"], []).append(callers)
    return Oracle(flat, parents, entries)


# the C runtime's routines (crt files, no debug info): gprof may credit them samples (AArch64's PLT
# stubs sit in _init's range), but they have no source to put a lens on
NO_SOURCE = frozenset({"_init", "_fini", "_start", "call_weak_fn", "frame_dummy", "__do_global_dtors_aux",
                       "register_tm_clones", "deregister_tm_clones", "__libc_csu_init", "__libc_csu_fini"})  # fmt: skip


def base_name(name: str) -> str:
    """The source name of a gcc clone (`foo.part.0`, `foo.constprop.0`, `foo.isra.0`, `foo.cold`)."""
    return name.split(".", 1)[0]


@dataclass(frozen=True)
class Lens:
    path: Path
    line: int  # 0-based
    character: int
    name: str  # the text under the lens's range
    self_s: str
    calls: str


def is_definition(lines: list[str], line: int, name: str) -> bool:
    """The declarator at `line` opens a body: `{` comes before any `;` from the name on."""
    text = lines[line]
    col = text.find(name)
    rest = "\n".join([text[col:], *lines[line + 1 : line + 40]])
    brace, semi = rest.find("{"), rest.find(";")
    return brace >= 0 and (semi < 0 or brace < semi)


async def lenses(client: Any, paths: list[Path]) -> list[Lens]:
    out: list[Lens] = []
    for path in paths:
        u = await open_doc(client, path)
        got = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=u))
        )
        lines = path.read_text(errors="replace").splitlines()
        for lens in got or []:
            r = lens.range
            name = lines[r.start.line][r.start.character : r.end.character]
            m = _TITLE.search(lens.command.title)
            assert m, lens.command.title
            out.append(Lens(path, r.start.line, r.start.character, name, m["self"], m["calls"] or ""))
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=u))
        )
    return out


def check_lenses(found: list[Lens], oracle: Oracle) -> list[str]:
    """Every flat-profile routine has a lens on its definition with gprof's figures; one lens per
    routine (a name never gets two lenses with the same figures on two lines)."""
    by_name: dict[str, list[Lens]] = {}
    for lens in found:
        by_name.setdefault(lens.name, []).append(lens)
    text: dict[Path, list[str]] = {}
    problems: list[str] = []
    for row in oracle.flat:
        base = base_name(row.name)
        candidates = by_name.get(base, [])
        if not candidates:
            problems.append(f"{row.name}: no lens")
            continue
        match = [c for c in candidates if (c.self_s, c.calls) == (row.self_s, row.calls)]
        if not match:
            problems.append(f"{row.name}: lens figures {[(c.self_s, c.calls) for c in candidates]} "
                            f"!= gprof's ({row.self_s}, {row.calls!r})")  # fmt: skip
            continue
        for c in match:
            lines = text.setdefault(c.path, c.path.read_text(errors="replace").splitlines())
            if not is_definition(lines, c.line, base):
                problems.append(f"{row.name}: lens at {c.path.name}:{c.line + 1} is not its definition")
    seen: dict[tuple[str, str, str], set[tuple[Path, int]]] = {}
    for lens in found:
        seen.setdefault((lens.name, lens.self_s, lens.calls), set()).add((lens.path, lens.line))
    flat_names = {base_name(r.name) for r in oracle.flat}
    for (name, s, c), places in seen.items():
        if (
            len(places) > 1
            and name in flat_names
            and sum(1 for r in oracle.flat if base_name(r.name) == name) < 2
        ):
            problems.append(
                f"{name}: {len(places)} lenses with the same figures ({s}, {c!r}): {sorted(places)}"
            )
    return problems


async def check_hottest(client: Any, found: list[Lens], oracle: Oracle, count: int = 10) -> list[str]:
    """Hover and call hierarchy on the `count` routines with the most self time."""
    problems: list[str] = []
    hottest = sorted(oracle.flat, key=lambda r: -float(r.self_s))[:count]
    for row in hottest:
        lens = next((x for x in found if x.name == base_name(row.name) and x.self_s == row.self_s), None)
        if lens is None:
            problems.append(f"{row.name}: no lens to hover")
            continue
        doc = types.TextDocumentIdentifier(uri=uri(lens.path))
        await open_doc(client, lens.path)
        pos = types.Position(lens.line, lens.character)
        hover = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos))
        value = hover.contents.value if hover else ""
        if f"**{row.name}**" not in value or "Total **" not in value:
            problems.append(f"{row.name}: hover {value[:120]!r}")
        items = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(text_document=doc, position=pos)
        )
        item = next((i for i in items or [] if i.name == row.name), None)
        if item is None:
            problems.append(f"{row.name}: call hierarchy items {[i.name for i in items or []]}")
            continue
        incoming = await client.call_hierarchy_incoming_calls_async(
            types.CallHierarchyIncomingCallsParams(item=item)
        )
        callers = {c.from_.name for c in incoming or []}
        expected = oracle.parents.get(row.name, [set()])
        if callers not in expected:
            problems.append(
                f"{row.name}: callers {sorted(callers)} != gprof's {[sorted(e) for e in expected]}"
            )
    return problems


@dataclass
class Served:
    state: str
    message: str
    routines: int
    logs: list[str]
    lenses: list[Lens]
    problems: list[str]


async def serve_zero_config(
    folder: Path, cache: Path, oracle: Oracle, sources: list[Path], *, full: bool, hottest: bool = False
) -> Served:
    """Open `folder` with no settings; wait for the load; collect lenses of `sources` and check them
    (all of them when `full`, else only that some lenses carry gprof's figures)."""
    assert not (folder / "gmonlens.yaml").exists()
    async with session([folder], cache) as client:
        status = await wait_status(client, timeout=600)
        logs = [m.message for m in getattr(client, "log_messages", [])]
        message, routines = _get(status, "message"), _get(status, "routines")
        served = Served(state_of(status), str(message), int(routines or 0), logs, [], [])
        if served.state != "loaded":
            return served
        served.lenses = await lenses(client, sources)
        if full:
            served.problems += check_lenses(served.lenses, oracle)
        if hottest:
            served.problems += await check_hottest(client, served.lenses, oracle)
        return served


def copy_program(binary: Path, gmon: Path, dest: Path, name: str | None = None) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / (name or binary.name)
    shutil.copy2(binary, target)
    shutil.copy2(gmon, dest / "gmon.out")
    return target
