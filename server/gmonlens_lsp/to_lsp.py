"""Analysis objects -> lsprotocol objects and texts. The only module that builds LSP types, and a
pure one: the source text and the places it needs are passed in (handlers fetch them off the event
loop); nothing here reads a file or asks the index.

Units: figures are seconds = ticks / hz, printed with two decimals as gprof prints them; percent is
gprof's call-graph percent (100 * (pself + pchild) / print_ticks, one decimal). Lines from `index`
are 1-based; LSP positions are 0-based with UTF-16 character offsets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from lsprotocol import types

from gmonlens.common.model import Arc, Profile, Routine
from gmonlens.profile.certainty import ProfileCertainty
from gmonlens.profile.line_heat import InlinedCopies
from gmonlens_ide import figures as fig
from gmonlens_ide import markdown as md
from gmonlens_ide.budgets import BudgetLine, RoutineBudgets
from gmonlens_ide.figures import FEW_MARK, RoutineFigures, duration, routine_figures
from gmonlens_ide.heat_index import HotLine
from gmonlens_ide.index import Place
from gmonlens_ide.settings import DEFAULT_LENS_TITLE, DEFAULT_LINE_HEAT_LABEL
from gmonlens_ide.sourcetext import utf16_len

from . import wire

SHOW_CALLERS = "gmonlens.showCallers"
# the figures, their rounding and the words for estimates are the editor-neutral layer's
Figures = RoutineFigures
figures = routine_figures
ASSUMPTION = f"*{fig.ASSUMPTION}*"


_NO_CALLS = re.compile(r"\s*·\s*\{calls\}\s*calls\b|\{calls\}\s*calls\b\s*·?\s*|\{calls\}")


def lens_title(template: str, f: Figures) -> str:
    """Fill the lens template; `{cycle}` becomes " · cycle N" or ""; without calls, the
    `{calls} calls` part (with its separator) is left out rather than saying `0 calls`.
    `{self_err}`/`{total_err}` are the standard errors in seconds, `{samples}`/`{total_samples}`
    the sample counts, `{few}` " · few samples" when the total rests on fewer than 10 samples."""
    if not f.calls:
        template = _NO_CALLS.sub("", template)
    values = {
        "percent": f.percent,
        "self": f.self_s,
        "total": f.total_s,
        "calls": f.calls,
        "cycle": f" · cycle {f.cycle}" if f.cycle else "",
        "name": f.name,
        "self_err": f.self_err,
        "total_err": f.total_err,
        "samples": f.samples,
        "total_samples": f.total_samples,
        "few": FEW_MARK if f.few else "",
    }
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return lens_title(DEFAULT_LENS_TITLE, f)


# ---- positions -------------------------------------------------------------------------------


_utf16 = utf16_len
Places = Mapping[int, Place | None]  # routine id -> its declaration (None: unknown)


def position(line: int, character: int) -> types.Position:
    """An LSP position (0-based line, UTF-16 character)."""
    return types.Position(line=line, character=character)


def name_range(place: Place, text: str) -> types.Range:
    """Range of the routine's name on its declaration line, whose text is `text` ("" when
    unknown: the declaration's column, zero width)."""
    line0 = max(place.line - 1, 0)
    start = -1
    if place.name and text:
        hint = max(place.column - 1, 0)
        start = text.find(place.name, hint)
        if start < 0:
            start = text.find(place.name)
    if start < 0:
        col = _utf16(text[: max(place.column - 1, 0)]) if text else max(place.column - 1, 0)
        return types.Range(types.Position(line0, col), types.Position(line0, col))
    a = _utf16(text[:start])
    b = a + _utf16(place.name)
    return types.Range(types.Position(line0, a), types.Position(line0, b))


def line_range(line: int) -> types.Range:
    """The start of 1-based `line` (zero width)."""
    return types.Range(types.Position(max(line - 1, 0), 0), types.Position(max(line - 1, 0), 0))


uri_of = wire.uri_of


def _link(label: str, place: Place | None) -> str:
    """A link to `place` (file URI and line) around `label`, already Markdown text."""
    if place is None:
        return label
    return f"[{label}]({uri_of(place.path)}#L{max(place.line, 1)})"


def location_link(name: str, place: Place | None) -> str:
    """`name` (plain text: escaped here) linked to its source line."""
    return _link(md.text(name), place)


# ---- lenses ----------------------------------------------------------------------------------


def code_lens(
    profile: Profile, rid: int, place: Place, text: str, template: str, generation: int, suffix: str = ""
) -> types.CodeLens:
    """The lens of routine `rid` declared at `place` (`text`: that line); `suffix`: appended to the
    title (the change against a baseline). A routine gprof folds clones into (`Profile.folded`)
    says so: ` · folds N clone(s)` (the hover names them)."""
    r = profile.routines[rid]
    rng = name_range(place, text)
    folded = len(profile.folded_into(rid)) if profile.folded else 0
    mark = f" · folds {folded} clone{'s' if folded > 1 else ''}" if folded else ""
    return types.CodeLens(
        range=rng,
        command=types.Command(
            title=lens_title(template, figures(profile, r)) + mark + suffix,
            command=SHOW_CALLERS,
            # the symbol tells apart the routines sharing a line (a template's instances)
            arguments=wire.lens_arguments(
                place.path, {"line": rng.start.line, "character": rng.start.character}, r.name
            ),
        ),
    )


# ---- hover -----------------------------------------------------------------------------------


def _name(profile: Profile, r: Routine) -> str:
    """A routine's name as gprof's call graph prints it (cycle, index), as Markdown text."""
    text = md.text(r.display_name)
    if r.cycle:
        text += f" <cycle {r.cycle}>"
    index = fig.gprof_index(r)
    return text + (f" [{index}]" if index else "")


def _arc_row(profile: Profile, arc: Arc, other: Routine, places: Places, parent_side: bool) -> str:
    me = profile.routines[arc.child if parent_side else arc.parent]
    link = _link(_name(profile, other), places.get(other.id))
    in_cycle = arc.is_self or (other.cycle != 0 and other.cycle == me.cycle)
    if in_cycle:
        return f"| | | | | {arc.count} | {link} |"
    callee = me if parent_side else other
    total_calls = profile.cycle(callee.cycle).calls if callee.cycle else callee.calls
    note = " (static)" if arc.is_static else ""
    return (
        f"| | | {fig.shown(profile.seconds(arc.self_ticks))} | {fig.shown(profile.seconds(arc.child_ticks))} "
        f"| {arc.count}/{total_calls}{note} | {link} |"
    )


def neighbours(profile: Profile, rid: int) -> list[int]:
    """The routines `hover_markdown(rid)` links to (its callers and callees): the places it needs."""
    arcs = profile.arcs
    return [arcs[pos].parent for pos in profile.parents[rid]] + [
        arcs[pos].child for pos in profile.children[rid]
    ]


def certainty_lines(profile: Profile, cert: ProfileCertainty, rid: int) -> list[str]:
    """How sure the routine's figures are: value ± standard error with the samples behind it, a
    warning when they are few, and how much of the children time is gprof's estimate."""
    r = profile.routines[rid]
    f = figures(profile, r)
    c = cert.routines[rid]
    lines = [
        f"Self **{f.self_s} ± {f.self_err} s** ({f.samples} samples) · total **{f.total_s} ± "
        f"{f.total_err} s** ({f.total_samples} samples); {fig.SAMPLING_ERROR}.",
        "",
    ]
    if f.few:
        lines += [f"⚠ **{fig.few_samples(f.total_samples)}**", ""]
    est = c.children_estimated_seconds
    if r.prop_child_ticks > 0 and est is not None and est > 0.0005 and c.split is not None:
        s = c.split
        who = profile.cycle(-s.callee).number if s.callee < 0 else None
        name = f"<cycle {who}>" if who else profile.routines[s.callee].display_name
        text = fig.children_estimated(fig.shown(est), f.children_s, f"**{md.text(name)}**", s.callers)
        lines += [text, ""]
    elif r.prop_child_ticks > 0:
        lines += [fig.CHILDREN_EXACT, ""]
    return lines


def hover_markdown(profile: Profile, places: Places, rid: int, cert: ProfileCertainty | None = None) -> str:
    """gprof's call-graph entry of routine `rid`: callers, the routine's line, callees (linked to
    their declarations in `places`, which holds `neighbours(profile, rid)`); with `cert`, how sure
    the figures are (certainty_lines)."""
    r = profile.routines[rid]
    if not r.has_figures:  # gprof prints no entry for it: no index, no table to show
        return f"**{md.text(r.display_name)}**: {fig.NO_FIGURES} (gprof prints no entry for it)."
    f = figures(profile, r)
    lines = [f"**{md.text(r.display_name)}**" + (f" · cycle {r.cycle}" if r.cycle else ""), ""]
    lines.append("| index | % time | self | children | called | name |")
    lines.append("|---|---:|---:|---:|---:|---|")
    parents = profile.parents[rid]
    if not parents:
        lines.append("| | | | | | *&lt;spontaneous&gt;* |")
    for pos in parents:
        arc = profile.arcs[pos]
        lines.append(_arc_row(profile, arc, profile.routines[arc.parent], places, parent_side=True))
    called = f"**{f.calls}**" if f.calls else ""  # gprof's blank: no recorded calls
    lines.append(
        f"| **[{r.index}]** | **{f.percent}%** | **{f.self_s}** | "
        f"**{f.children_s}** | {called} | **{_name(profile, r)}** |"
    )
    for pos in profile.children[rid]:
        arc = profile.arcs[pos]
        lines.append(_arc_row(profile, arc, profile.routines[arc.child], places, parent_side=False))
    lines.append("")
    lines.append(
        f"Total **{f.total_s} s** (self {f.self_s} s + children {f.children_s} s), {f.percent}% of the run"
        + (
            f", {f.calls} calls."
            if f.calls
            else "; no recorded calls (spontaneous: called from code without -pg)."
        )
    )
    lines.append("")
    lines += folded_markdown(profile, rid)
    if cert is not None:
        lines += certainty_lines(profile, cert, rid)
    if r.cycle:
        cyc = profile.cycle(r.cycle)
        members = ", ".join(md.text(profile.routines[m].display_name) for m in cyc.member_order)
        lines.append(
            f"Member of **cycle {r.cycle}** ({members}): {fig.shown(profile.seconds(cyc.total_ticks))} s as a whole, "
            f"{cyc.calls} calls from outside, {cyc.self_calls} between members."
        )
        lines.append("")
    ncalls = r.calls + r.self_calls
    if ncalls:
        per_self = duration(_per_call(profile.seconds(r.self_ticks), ncalls))
        per_total = duration(_per_call(profile.seconds(r.self_ticks + r.child_ticks), ncalls))
        lines.append(f"Per call: self {per_self}, total {per_total} ({ncalls} calls).")
        lines.append("")
    lines.append(ASSUMPTION)
    return "\n".join(lines)


def folded_markdown(profile: Profile, rid: int) -> list[str]:
    """Lines naming the clones gprof folds into routine `rid` and their share of its figures."""
    folded = profile.folded_into(rid) if profile.folded else ()
    if not folded:
        return []
    r = profile.routines[rid]
    parts = []
    for f in folded:
        share = (
            f"{100.0 * f.self_ticks / r.self_ticks:.0f}% of its self time" if r.self_ticks else "no samples"
        )
        calls = f"{f.calls} of its {r.calls} calls" if r.calls else f"{f.calls} calls"
        parts.append(f"`{f.name}` ({share}, {calls})")
    return [
        "gprof credits these routines to it (their names are ones gprof ignores, so their code counts as "
        "the routine before them): " + ", ".join(parts) + ". `gmonlens.clones: apart` shows them apart.",
        "",
    ]


def _per_call(total: float | None, calls: int) -> float | None:
    return None if total is None else total / calls


def instances_markdown(profile: Profile, rids: list[int], shown: int) -> str:
    """The head of a hover on a line declaring several routines (`rids`, hottest first): how many,
    how many of them have no figures (a header's static copied into units that never call it:
    counted, not listed, as gprof prints nothing of them), and the figures of those with figures
    past the first `shown` (whose entries follow in full)."""
    active = [rid for rid in rids if profile.routines[rid].has_figures]
    idle = len(rids) - len(active)
    head = f"**{len(rids)} routines on this line**"
    if idle:
        them = "it" if idle == 1 else "them"
        head += f"; {idle} {'copy' if idle == 1 else 'copies'} {fig.NO_FIGURES} (gprof prints no entry for {them})"
    rest = [profile.routines[rid] for rid in active[shown:]]
    if not rest:
        return head + ("; the others in full below, hottest first." if active else ".")
    rows = [f"| {f.self_s} | {f.calls} | {_name(profile, r)} |" for r in rest for f in [figures(profile, r)]]
    return "\n".join([f"{head}; the {shown} hottest in full below, the others:", "",
                      "| self | called | name |", "|---:|---:|---|", *rows])  # fmt: skip


def hover(markdown: str, line0: int) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
        range=types.Range(types.Position(line0, 0), types.Position(line0 + 1, 0)),
    )


# ---- call hierarchy / symbols ----------------------------------------------------------------


def _fallback_place(profile: Profile, r: Routine, binary: str) -> Place:
    return Place(binary, False, 1, 0, r.display_name)


def call_item(
    profile: Profile, rid: int, place: Place | None, text: str, binary: str, generation: int
) -> types.CallHierarchyItem:
    """Routine `rid` declared at `place` (`text`: that line; without a place, the binary's)."""
    r = profile.routines[rid]
    if place is None:
        place, text = _fallback_place(profile, r, binary), ""
    f = figures(profile, r)
    rng = name_range(place, text)
    return types.CallHierarchyItem(
        name=r.display_name,
        kind=types.SymbolKind.Function,
        uri=uri_of(place.path),
        range=types.Range(rng.start, rng.end),
        selection_range=rng,
        detail=lens_title(DEFAULT_LENS_TITLE, f),
        data=wire.item_data(rid, generation, r.name),
    )


def arc_detail(profile: Profile, arc: Arc, estimated: bool | None = None) -> str:
    """The figures along an arc; `estimated` (certainty.estimated_arc) adds whether its time is
    gprof's split among several callers or exact (None: not said)."""
    if arc.is_static:
        return "static call (never counted)"
    text = (
        f"{arc.count} calls · {fig.shown(profile.seconds(arc.self_ticks))} s self + "
        f"{fig.shown(profile.seconds(arc.child_ticks))} s children"
    )
    if estimated is None or arc.is_self:
        return text
    return text + " · " + (fig.ARC_ESTIMATED if estimated else fig.ARC_EXACT)


def call_ranges(lines: Sequence[int], fallback: types.Range) -> list[types.Range]:
    """Ranges of the 1-based call-site `lines` (those in the caller's file), else `fallback`."""
    return [line_range(line) for line in lines] or [fallback]


def incoming(
    item: types.CallHierarchyItem,
    arc: Arc,
    lines: Sequence[int],
    profile: Profile,
    estimated: bool | None = None,
) -> types.CallHierarchyIncomingCall:
    """`item` (the caller) calls through `arc` at `lines` of the caller's file (`estimated`: whether
    the arc's time is gprof's estimate; None: not said)."""
    item.detail = arc_detail(profile, arc, estimated)
    return types.CallHierarchyIncomingCall(from_=item, from_ranges=call_ranges(lines, item.selection_range))


def outgoing(
    item: types.CallHierarchyItem,
    arc: Arc,
    lines: Sequence[int],
    caller_sel: types.Range,
    profile: Profile,
    estimated: bool | None = None,
) -> types.CallHierarchyOutgoingCall:
    """The caller (selection range `caller_sel`) calls `item` through `arc` at `lines` of its file."""
    item.detail = arc_detail(profile, arc, estimated)
    return types.CallHierarchyOutgoingCall(to=item, from_ranges=call_ranges(lines, caller_sel))


def symbol(profile: Profile, rid: int, place: Place, text: str) -> types.WorkspaceSymbol:
    """Routine `rid` declared at `place` (`text`: that line)."""
    r = profile.routines[rid]
    f = figures(profile, r)
    return types.WorkspaceSymbol(
        name=r.display_name,
        kind=types.SymbolKind.Function,
        location=types.Location(uri=uri_of(place.path), range=name_range(place, text)),
        container_name=f"{f.percent}% · total {f.total_s} s",
    )


def message_type(kind: str) -> types.MessageType:
    """ "error", "warning", "log" (a line of a command's output), else Info."""
    kinds = {
        "error": types.MessageType.Error,
        "warning": types.MessageType.Warning,
        "log": types.MessageType.Log,
    }
    return kinds.get(kind, types.MessageType.Info)


# ---- line heat -------------------------------------------------------------------------------


_line_err = wire.line_err


def heat_label(template: str, h: HotLine) -> str:
    """Fill the line-heat label template (seconds with two decimals, percent with one; `{err}` the
    standard error in seconds, `{samples}` the line's samples, `{few}` " · few samples" under 10)."""
    values = {"seconds": fig.shown(h.seconds), "percent": f"{h.percent:.1f}", "routine": h.routine,
              "line": str(h.line), "err": fig.shown(_line_err(h)), "samples": f"{h.samples:.0f}",
              "few": FEW_MARK if fig.is_few(h.samples, fig.shown(h.seconds)) else ""}  # fmt: skip
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return DEFAULT_LINE_HEAT_LABEL.format(**values)


def heat_tooltip(h: HotLine) -> str:
    text = (
        f"Line samples: {fig.shown(h.seconds)} ± {fig.shown(_line_err(h))} s ({h.samples:.0f} samples), "
        f"{h.percent:.1f}% of the total time, in {h.routine}"
    )
    if len(h.routines) > 1:
        text += " (" + ", ".join(f"{name} {fig.shown(s)} s" for name, s in h.routines) + ")"
    return text


def inlay_hint(h: HotLine, line_text: str, template: str) -> types.InlayHint:
    """A hint after the end of 1-based line `h.line` (whose text is `line_text`)."""
    return types.InlayHint(
        position=types.Position(max(h.line - 1, 0), _utf16(line_text)),
        label=heat_label(template, h),
        padding_left=True,
        tooltip=heat_tooltip(h),
    )


def inlined_markdown(name: str, copies: InlinedCopies, profile: Profile, places: Places) -> str:
    """Where the inlined copies of `name` were sampled (line samples, not call-graph figures); the
    routines they lie in are linked to their declarations in `places`."""
    total = profile.total_ticks if profile.total_ticks > 0 else 1.0
    lines = [
        f"**{md.text(name)}**, inlined: {fig.shown(profile.seconds(copies.ticks))} s of line samples in its inlined "
        f"copies ({100.0 * copies.ticks / total:.1f}% of the total time), in:",
        "",
    ]
    for rid, ticks in copies.callers:
        r = profile.routines[rid]
        lines.append(
            f"- {location_link(r.display_name, places.get(rid))}: {fig.shown(profile.seconds(ticks))} s"
        )
    lines.append("")
    lines.append(
        "*Line samples: histogram samples on the inlined code's lines. gprof's call graph counts "
        "them in the routines listed, not as calls.*"
    )
    return "\n".join(lines)


def _budget_line(b: BudgetLine, path: str, label: str) -> str:
    text = md.text(b.text)
    if b.test is not None:  # a whole suite's: the worst test's figure
        text += f" in {md.text(b.test)}"
    if b.verdict == "undecided" and b.reason:
        text += f" ({md.text(b.reason)})"
    if not b.noted:
        text += f" · {b.verdict}"
    if b.tests:
        bad = b.failing or b.undecided
        text += (
            f" · passes in all {b.tests} tests"
            if not bad
            else f" · {'fails' if b.failing else 'undecided'} in {bad} of {b.tests} tests"
        )
    where = md.text(f"rule {b.rule}, {label}" + (f":{b.line}" if b.line else ""))
    return f"{text} · [{where}]({uri_of(path)}#L{max(b.line, 1)})"


def budget_markdown(b: RoutineBudgets | None) -> str:
    """A routine's budgets in its hover (`gmonlens_ide.budgets`): "**Budget**: calls 1,000,000 of
    1,200,000 allowed · pass · [rule 1, budgets.yaml:7](...)", a list when several rules name it,
    each linked to its rule; per test (a whole suite's load) the worst test's figure and how many
    tests fail. "" without budgets."""
    if b is None or not b.lines:
        return ""
    lines = [_budget_line(x, b.path, b.label) for x in b.lines]
    if len(lines) == 1 and not b.more:
        return f"**Budget**: {lines[0]}"
    more = [f"- and {b.more} more in {md.text(b.label)}"] if b.more else []
    return "\n".join(["**Budgets**:", *(f"- {x}" for x in lines), *more])


# ---- messages, registrations, progress, configuration, errors ------------------------------


def show_message(kind: str, text: str) -> types.ShowMessageParams:
    """window/showMessage's parameters (`kind`: "error", "warning" or "info")."""
    return types.ShowMessageParams(type=message_type(kind), message=text)


def log_message(kind: str, text: str) -> types.LogMessageParams:
    """window/logMessage's parameters (`kind`: "error", "warning" or "info")."""
    return types.LogMessageParams(type=message_type(kind), message=text)


def registration(registration_id: str, method: str, options: object = None) -> types.RegistrationParams:
    """client/registerCapability's parameters: one registration of `method`."""
    one = types.Registration(id=registration_id, method=method, register_options=options)
    return types.RegistrationParams(registrations=[one])


def file_watchers(patterns: Sequence[str]) -> types.DidChangeWatchedFilesRegistrationOptions:
    """Watch the files matching these glob patterns."""
    return types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=p) for p in patterns]
    )


def progress_begin(title: str, text: str, cancellable: bool = False) -> types.WorkDoneProgressBegin:
    return types.WorkDoneProgressBegin(title=title, message=text, cancellable=cancellable)


def progress_report(text: str) -> types.WorkDoneProgressReport:
    return types.WorkDoneProgressReport(message=text)


def progress_end(text: str) -> types.WorkDoneProgressEnd:
    return types.WorkDoneProgressEnd(message=text)


def configuration(section: str, scope_uris: Sequence[str]) -> types.ConfigurationParams:
    """workspace/configuration's parameters: `section` globally, then for each scope."""
    items = [types.ConfigurationItem(section=section)]
    items += [types.ConfigurationItem(section=section, scope_uri=uri) for uri in scope_uris]
    return types.ConfigurationParams(items=items)


def text_document_content_options(schemes: list[str]) -> types.TextDocumentContentOptions:
    """The options of LSP 3.18's workspace/textDocumentContent: the URI schemes served."""
    return types.TextDocumentContentOptions(schemes=schemes)


def inlay_hint_options() -> types.InlayHintOptions:
    return types.InlayHintOptions(resolve_provider=False)


def save_options() -> types.SaveOptions:
    """didSave without the text (the document's lines are held already)."""
    return types.SaveOptions(include_text=False)


def response_error(code: int, text: str) -> types.ResponseError:
    """A JSON-RPC error object (`code`: the specification's number)."""
    return types.ResponseError(code=code, message=text)


def error_response(msg_id: int | str | None, code: int, text: str) -> types.ResponseErrorMessage:
    """A whole JSON-RPC error response to request `msg_id`."""
    return types.ResponseErrorMessage(id=msg_id, error=response_error(code, text))


def document_content(text: str | None, error: str) -> types.TextDocumentContentResult:
    """A listing document's text (`workspace/textDocumentContent`: never null); else the error as
    its one line."""
    return types.TextDocumentContentResult(text=text if text is not None else f"gmonlens: {error}\n")


def content_refresh(uri: str) -> types.TextDocumentContentRefreshParams:
    """workspace/textDocumentContent/refresh's parameters: the document `uri` changed."""
    return types.TextDocumentContentRefreshParams(uri=uri)


def disassembly_link(uri: str) -> str:
    """The hover's link to a routine's listing document (a `gmonlens-disasm:` URI)."""
    return f"[Show disassembly]({uri})"
