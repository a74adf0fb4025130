"""A routine's listing (`listing.Listing`) as text or JSON (pure: names and source text passed in).

JSON, schema `gmonlens-disasm/1` (times in seconds; samples are gprof's ticks, fractional where
a histogram bin straddles instructions; addresses are integers, link-time as in the ELF file):
- `schema`, `routine` (the name gprof prints), `name` (raw, mangled), `address`, `end`
  (exclusive), `file`, `line` (what `gprof -l` gives the routine's first byte: BFD's file, null/0
  without line information), `self_seconds` (gprof's flat-profile self seconds, the sum of the
  instructions'), `samples`, `percent` (of the profile's flat total), `total_seconds` (that
  total), `machine` (x64, x86, a64), `syntax` (att, intel)
- `instructions[]`: `address`, `bytes` (hex), `text` (mnemonic and operands as objdump -d spells
  and names them: branch targets as `hex <symbol+0xoff>`, `<func@plt>` for a PLT entry, an x86-64
  RIP-relative operand's `        # 3fd0 <mcount@GLIBC_2.2.5>`), `samples`, `seconds`, `percent` (of the
  routine's self time), `file`, `line`, `function` (the innermost, possibly inlined, function
  `gprof -l` names there, as gprof prints it), `label` (`L3`: a branch of the routine goes here;
  null otherwise), `target` (direct branch or call target; null otherwise), `calls[]`
- `calls[]` (on call instructions): `callee` (as gprof prints it), `count` (gprof's calls along
  the arc through this instruction), `seconds` (the time gprof propagates along the arc, split
  among its call sites by count: an *estimate*, hence `estimate: true`), `shared` (other call
  instructions fit the recorded return address too; the count is put on the first), `exact`
  (false: no call instruction fits; placed on the instruction at the recorded address)
- `symbols[]`: `address`, `name`: ELF code symbols starting inside the routine (routines
  folded into it by `-a`, aliases)
Several routines (a symspec matching several) print a JSON array of such objects.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from gmonlens.common.units import shown
from gmonlens.disasm.listing import Instruction, Listing

SCHEMA = "gmonlens-disasm/1"
HOT, WARM = 5.0, 1.0  # percent of the routine's self time: marked `*` / `+` (red / yellow on a tty)
Display = Callable[[str], str]  # raw name -> printed name
SourceLine = Callable[[str, int], "str | None"]  # (recorded file, 1-based line) -> its text

_PREFIXES = frozenset({"cs", "ds", "ss", "es", "fs", "gs", "data16", "lock", "rep", "repz", "repnz"})
_PREFIXES |= {"notrack", "bnd", "addr32"}


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


def _plain(ticks: float) -> float | int:
    return int(ticks) if ticks == int(ticks) else ticks


def full_text(insn: Instruction, names: Callable[[int], str | None]) -> str:
    """`insn`'s text as objdump -d ends it (`annotated`)."""
    return annotated(insn.text, insn.target, insn.ref, names)


def annotated(text: str, target: int | None, ref: int | None, names: Callable[[int], str | None]) -> str:
    """An instruction's `text` as objdump -d ends it: ` <symbol+0xoff>` after a direct `target`
    (`names(address)`) and after an AArch64 `adrp`'s page (`ref`); the address an x86-64
    RIP-relative operand names (`ref`) and its name in a comment,
    `        # 3fd0 <mcount@GLIBC_2.2.5>`."""
    if target is not None:
        where = names(target)
        text = f"{text} <{where}>" if where else text
    if ref is not None:
        where = names(ref)
        if text.startswith("adrp "):
            text = f"{text} <{where}>" if where else text
        else:
            text = f"{text}        # {ref:x}" + (f" <{where}>" if where else "")
    return text


def objdump_line(text: str) -> str:
    """An instruction's (annotated) text laid out as objdump -d prints it: the mnemonic padded to
    six columns and a space (prefixes kept with it)."""
    return _spaced(text)


def to_json(
    listing: Listing, display: Display, names: Callable[[int], str | None], syntax: str
) -> dict[str, Any]:
    """The listing as `gmonlens-disasm/1` (module docstring)."""
    self_ticks = sum(i.ticks for i in listing.instructions)
    return {
        **_head_json(listing, syntax, self_ticks),
        "instructions": [_insn_json(listing, i, display, names, self_ticks) for i in listing.instructions],
        "symbols": _symbols_json(listing, display),
    }


def json_text(
    listings: Sequence[Listing], display: Display, names: Callable[[int], str | None], syntax: str
) -> Iterator[str]:
    """`to_json` of each listing as JSON text, in pieces (an array of them for several
    listings): the routine's fields indented, then one instruction a line. Each instruction's
    object is made and encoded (by json's C encoder) in turn, so a listing of 56,000
    instructions never has all their objects at once, and the pieces can be written in large
    blocks (json.dump with `indent` encodes in Python and writes each token on its own)."""
    many = len(listings) > 1
    pad = " " if many else ""  # inside the array: one more space of indent
    yield "[\n" if many else ""
    for n, listing in enumerate(listings):
        self_ticks = sum(i.ticks for i in listing.instructions)
        head = json.dumps(_head_json(listing, syntax, self_ticks), indent=1).replace("\n", "\n" + pad)
        yield ",\n" if n else ""
        yield f'{pad}{head[:-1].rstrip()},\n{pad} "instructions": ['
        sep = f"\n{pad}  "
        for i in listing.instructions:
            yield sep + json.dumps(_insn_json(listing, i, display, names, self_ticks))
            sep = f",\n{pad}  "
        yield f"\n{pad} ]," if listing.instructions else "],"
        yield f'\n{pad} "symbols": {json.dumps(_symbols_json(listing, display))}\n{pad}}}'
    yield "\n]\n" if many else "\n"


def _symbols_json(listing: Listing, display: Display) -> list[dict[str, Any]]:
    return [{"address": a, "name": display(n)} for a, n in listing.symbols]


def _head_json(listing: Listing, syntax: str, self_ticks: float) -> dict[str, Any]:
    """The listing's own fields (`to_json` without `instructions` and `symbols`)."""
    r = listing.routine
    sec = listing.seconds
    insns = listing.instructions
    return {
        "schema": SCHEMA,
        "routine": r.display_name,
        "name": r.name,
        "address": r.address,
        "end": insns[-1].address + insns[-1].size if insns else r.address,
        "file": insns[0].file if insns else None,
        "line": insns[0].line if insns else 0,
        "self_seconds": sec(self_ticks),
        "samples": _plain(self_ticks),
        "percent": _pct(self_ticks, listing.total_ticks),
        "total_seconds": sec(listing.total_ticks),
        "machine": listing.machine,
        "syntax": syntax,
    }


def _insn_json(
    listing: Listing, i: Instruction, display: Display, names: Callable[[int], str | None], whole: float
) -> dict[str, Any]:
    sec = listing.seconds
    return {
        "address": i.address,
        "bytes": i.raw.hex(),
        "text": full_text(i, names),
        "samples": _plain(i.ticks),
        "seconds": sec(i.ticks),
        "percent": _pct(i.ticks, whole),
        "file": i.file,
        "line": i.line,
        "function": display(i.function) if i.function else None,
        "label": i.label,
        "target": i.target,
        "calls": [
            {
                "callee": c.name,
                "count": c.count,
                "seconds": sec(c.ticks),
                "estimate": True,
                "shared": c.shared,
                "exact": c.exact,
            }
            for c in i.calls
        ],
    }


def _spaced(text: str) -> str:
    """objdump's column: the mnemonic padded to 6 characters (prefixes kept with it)."""
    words = text.split(" ", 1)
    if len(words) == 1 or words[0] in _PREFIXES:
        return text
    return f"{words[0]:<6} {words[1]}"


def _figure(ticks: float) -> str:
    return "%d" % ticks if ticks == int(ticks) else "%.1f" % ticks


_RED, _YELLOW, _DIM, _CYAN, _RESET = "\x1b[31m", "\x1b[33m", "\x1b[2m", "\x1b[36m", "\x1b[0m"


Row = tuple[str, int, str | None, int]  # (kind, instruction index or -1, source file, source line)


def render_text(
    listing: Listing,
    display: Display,
    names: Callable[[int], str | None],
    source: SourceLine | None = None,
    colour: bool = False,
) -> str:
    """The listing in the manner of `perf annotate` (see README, `gmonlens disasm`): a header,
    then per instruction its share of the routine, seconds, samples, address, bytes and text; the
    source line wherever (file, line) changes, inlined functions where their code starts and
    ends, labels of jump targets, calls with gprof's count and estimated time. Hot instructions
    (>= 5% of the routine) are marked `*` (red with `colour`), warm ones (>= 1%) `+` (yellow)."""
    lines = render_lines(listing, display, names, source, colour)
    return "\n".join(text for text, _row in lines) + "\n"


def render_lines(
    listing: Listing,
    display: Display,
    names: Callable[[int], str | None],
    source: SourceLine | None = None,
    colour: bool = False,
    compact: bool = False,
) -> list[tuple[str, Row]]:
    """`render_text`'s lines, each with what it shows: ("header", -1, None, 0), ("source", -1,
    file, line), ("instruction", k, file, line) for instruction k (its first line; "bytes" for
    the continuation of its bytes), ("label", ...), ("inline", ...), ("symbol", ...).

    `compact` (an editor that shows the figures beside the text, as inlay hints and heat): each
    instruction is one line, its hot/warm marker, address and text, without figures and bytes."""
    r = listing.routine
    insns = listing.instructions
    self_ticks = sum(i.ticks for i in insns)
    sec = listing.seconds
    where = f" ({insns[0].file}:{insns[0].line})" if insns and insns[0].file else ""
    end = (insns[-1].address + insns[-1].size) if insns else r.address
    head: Row = ("header", -1, None, 0)
    out: list[tuple[str, Row]] = [
        (f"{r.display_name}{where}  0x{r.address:x}..0x{end:x}", head),
        (
            f"self {shown(sec(self_ticks))} s ({_figure(self_ticks)} samples), "
            f"{_pct(self_ticks, listing.total_ticks):.2f}% of {shown(sec(listing.total_ticks))} s; "
            f"{len(insns)} instructions",
            head,
        ),
        ("* >= 5% of the routine, + >= 1%; ~s: time gprof propagates along a call (an estimate)", head),
        ("", head),
    ]
    if not compact:
        out.append(("    %routine  seconds  samples    address  bytes                 instruction", head))
    own = insns[0].function if insns else ""
    prev_place: tuple[str | None, int] | None = None
    prev_fn = own
    symbols = dict(listing.symbols)
    labels = {i.address: i.label for i in insns if i.label}
    pad = " " * (2 if compact else 39)
    for k, i in enumerate(insns):
        if i.address in symbols:  # a routine folded into this one (-a) or an alias: its own code
            out.append((f"{pad}<{display(symbols[i.address])}>:", ("symbol", k, i.file, i.line)))
            own = prev_fn = i.function
        if i.function != prev_fn:
            marker = _inline_marker(prev_fn, i.function, own, display).lstrip()
            out.append((pad + marker, ("inline", k, i.file, i.line)))
            prev_fn = i.function
        place = (i.file, i.line)
        if place != prev_place and i.file is not None:
            text = source(i.file, i.line) if source is not None else None
            loc = f"{i.file.rsplit('/', 1)[-1]}:{i.line}"
            line = f"{pad}{loc}" + (f"  {text.strip()}" if text and text.strip() else "")
            out.append((f"{_CYAN}{line}{_RESET}" if colour else line, ("source", -1, i.file, i.line)))
        prev_place = place
        if i.label:
            out.append((f"{pad}{i.label}:", ("label", k, i.file, i.line)))
        if compact:
            out.append(
                (_compact_line(listing, i, names, self_ticks, labels), ("instruction", k, i.file, i.line))
            )
            continue
        for n, text in enumerate(_insn_lines(listing, i, names, self_ticks, colour, labels)):
            out.append((text, ("instruction" if n == 0 else "bytes", k, i.file, i.line)))
    return out


def _inline_marker(prev: str, now: str, own: str, display: Display) -> str:
    pad = " " * 39
    if now == own:
        return f"{pad}[end of inlined {display(prev)}]"
    if prev == own:
        return f"{pad}[inlined {display(now)}]"
    return f"{pad}[inlined {display(now)}, from inlined {display(prev)}]"


def _annotated(
    listing: Listing, i: Instruction, names: Callable[[int], str | None], labels: dict[int, str]
) -> str:
    """The instruction's text with its label target and its calls (count, estimated time)."""
    sec = listing.seconds
    text = _spaced(full_text(i, names))
    if i.target is not None and i.kind in ("jump", "branch") and i.target in labels:
        text += f"  -> {labels[i.target]}"
    for c in i.calls:
        text += f"  # {c.name}: {c.count} call{'s' if c.count != 1 else ''}, ~{shown(sec(c.ticks))} s"
        text += " (shared)" if c.shared else ""
    return text


def _compact_line(
    listing: Listing, i: Instruction, names: Callable[[int], str | None], whole: float, labels: dict[int, str]
) -> str:
    pct = _pct(i.ticks, whole)
    mark = "*" if pct >= HOT else "+" if pct >= WARM else " "
    return f"{mark}{i.address:8x}:  {_annotated(listing, i, names, labels)}"


def _insn_lines(
    listing: Listing,
    i: Instruction,
    names: Callable[[int], str | None],
    whole: float,
    colour: bool,
    labels: dict[int, str],
) -> list[str]:
    sec = listing.seconds
    pct = _pct(i.ticks, whole)
    mark = "*" if pct >= HOT else "+" if pct >= WARM else " "
    figures = f"{pct:10.2f}% {shown(sec(i.ticks), '8.2f')} {_figure(i.ticks):>8}" if i.ticks else " " * 29
    raw = i.raw.hex(" ")
    chunk = 7 * 3 - 1
    text = _annotated(listing, i, names, labels)
    first = f"{mark}{figures} {i.address:10x}:  {raw[:chunk]:<21} {text}"
    if colour:
        hue = _RED if mark == "*" else _YELLOW if mark == "+" else _DIM if not i.ticks else ""
        first = f"{hue}{first}{_RESET}" if hue else first
    lines = [first]
    rest = raw[chunk + 1 :]
    addr = i.address + 7
    while rest:
        lines.append(f"{'':>30} {addr:10x}:  {rest[:chunk]}")
        rest = rest[chunk + 1 :]
        addr += 7
    return lines
