"""Whether a profile was written by a binary: the one fit rule, used by the CLI and the server (pure).

What real toolchains write (x86-64, i386 and AArch64; PIE and non-PIE; static and dynamic; from a
toy to 20,000 routines): glibc's histogram runs from the start of the executable image (the lowest
PT_LOAD address: 0 in a PIE, 0x400000 or 0x8048000 otherwise) to `etext` rounded up to 4 (the end of
the last code section, `.fini`). Older libcs and other platforms start it at `.text` (or `_start`).
Call-graph arcs are recorded only for callers inside that range, so every arc lands on a routine.
Each arc is (from_pc, self_pc): self_pc is the return address of the call to mcount in the callee's
prologue (14 to 48 bytes past its entry on x86-64, i386 and AArch64, -O0 to -O2, PIE or not; on
i386 PIC code a call to the pc thunk comes first), and from_pc is the caller's return address, which
glibc rounds down to 2 * the address size (`call_sites.py`), so a call instruction ends in
[from_pc, from_pc + granule). Both held for every arc of every program looked at. A `gmon.sum`
that `gprof -s` wrote holds its arcs between symbol addresses: a callee at a routine's entry is
consistent too.

A profile FITS a binary when
- the union of its histogram records starts at or after the image's start (rounded down to 4) and
  ends at or before the end of the code (rounded up to 4), overlapping the code, and
- the histogram ends at or after the end of `.text` (a run of this binary covers all of it),
- some of its arcs land on the binary's routines (when it has arcs), and
- where the binary calls mcount (its symbol table names `mcount`, `_mcount` or `__fentry__`,
  defined or imported) and its calls can be read (x86, AArch64), at least half of the arcs that land
  on routines (an evenly spread sample of ARC_CODE_SAMPLE) match the code as above: another
  program's arcs land on arbitrary bytes, a few percent of which follow a call instruction.
Anything else is an error: the profile belongs to another program (or to an older build). It fits EXACTLY when, in
addition, the histogram covers all of `.text` (starts at or before it, ends at or after its end)
and every arc lands on routines: that is what a binary writes for its own run. A profile that fits
only loosely (a histogram starting at `.text`, as older libcs write it; some arcs outside every
routine or not matching the code) may come from another toolchain; the CLI warns and goes on, the
server's discovery never picks such a binary by itself.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.binary.image import ElfImage
from gmonlens.common.model import CodeSection, GmonData, RawArc
from gmonlens.profile.call_sites import CallFinder
from gmonlens.profile.symbols import SymbolTable

_PROFILING_HOOKS = frozenset({"mcount", "_mcount", "__mcount", "__fentry__"})
ARC_SAMPLE = 4096  # arcs looked at to tell whether some stray
ARC_CODE_SAMPLE = 128  # arcs whose ends are checked against the code
PROLOGUE = 256  # bytes past an entry within which a callee's mcount call returns
CALL_SITE_REACH = 1024  # a call site is decoded from its routine's entry, at most this far back


@dataclass(frozen=True)
class Fit:
    """The verdict: `errors` (not this program's profile) and `warnings` (fits loosely)."""

    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    stray_arcs: int = 0  # arcs (of a sample of ARC_SAMPLE) with an end outside every routine
    no_routines: bool = False  # the binary has no code or no routines: nothing to fit (gprof: empty report)
    mismatched_arcs: int = 0  # arcs (of a sample of ARC_CODE_SAMPLE) whose ends do not match the code

    @property
    def fits(self) -> bool:
        return not self.errors and not self.no_routines

    @property
    def exact(self) -> bool:
        return self.fits and not self.warnings and not self.stray_arcs and not self.mismatched_arcs


def arc_code_mismatches(image: ElfImage, symtab: SymbolTable, arcs: Sequence[RawArc]) -> tuple[int, int]:
    """(arcs that do not match the code, arcs looked at) over an evenly spread sample of the arcs
    whose ends both land on routines (module docstring); (0, 0) where the code cannot be read.

    Each arc is first looked at without a decoder (`CallFinder.may_return_at`: the bytes before
    its return addresses are a call's encoding). An arc that fails it does not match; when none
    fails (a binary's own profile) the sample matches and no decoder is loaded. When some fail,
    the others are decoded (capstone on x86), so the count is the decoder's."""
    if not arcs or not any(s.name.split("@")[0] in _PROFILING_HOOKS for s in image.symbols):
        return 0, 0  # not built with -pg as glibc's toolchain builds it: nothing to compare with
    finder = CallFinder(image.machine, image.address_size, [(c.address, c.data) for c in image.code_sections])
    if not finder.knows_encodings:
        return 0, 0
    entries = sorted(
        {s.value for s in image.symbols if (s.is_function or s.class_letter in "TtW") and s.value}
    )
    step = max(1, len(arcs) // ARC_CODE_SAMPLE)
    looked = bad = 0
    unsure: list[tuple[RawArc, int, int, int]] = []  # (arc, callee entry, call-site window) to decode
    for a in arcs[::step]:
        if symtab.lookup(a.from_pc) < 0 or symtab.lookup(a.self_pc) < 0:
            continue  # a stray arc, counted apart
        looked += 1
        entry = _entry(entries, a.self_pc)
        if a.self_pc == entry:
            continue  # gprof -s writes each arc between its routines' (or line symbols') addresses
        start, end = _call_site_window(entries, a.from_pc, finder.granule)
        if a.self_pc - entry > PROLOGUE or not (
            finder.may_return_at(a.self_pc, entry)
            and any(finder.may_return_at(r, start) for r in range(a.from_pc, a.from_pc + finder.granule))
        ):
            bad += 1
        else:
            unsure.append((a, entry, start, end))
    if bad and finder.decodes:
        bad += sum(1 for a, entry, start, end in unsure if not _decoded_match(finder, a, entry, start, end))
    return bad, looked


def _call_site_window(entries: Sequence[int], from_pc: int, granule: int) -> tuple[int, int]:
    """[start, end): the code decoded to find the call behind a recorded return address: from its
    routine's entry (at most CALL_SITE_REACH back) to the next entry, past the address's granule."""
    start = max(_entry(entries, from_pc), from_pc - CALL_SITE_REACH)
    i = bisect_right(entries, from_pc)
    end = min(entries[i] if i < len(entries) else from_pc + CALL_SITE_REACH, start + 2 * CALL_SITE_REACH)
    return start, max(end, from_pc + granule)


def _decoded_match(finder: CallFinder, a: RawArc, entry: int, start: int, end: int) -> bool:
    """Whether the decoded code has a call returning to `a.self_pc` in the callee's prologue and
    one returning in [from_pc, from_pc + granule) in the caller (the module docstring's rule)."""
    if a.self_pc not in finder.call_returns(entry, entry + PROLOGUE):
        return False
    rets = finder.call_returns(start, end)
    k = bisect_left(rets, a.from_pc)
    return k < len(rets) and rets[k] < a.from_pc + finder.granule


def _stray(symtab: SymbolTable, a: RawArc, code_end: int) -> bool:
    """An arc with an end on no routine, but for a call into a shared library built with -pg (its
    callee beyond the program's code: glibc records it, gprof drops it)."""
    if symtab.lookup(a.from_pc) < 0:
        return True
    return symtab.lookup(a.self_pc) < 0 and a.self_pc < code_end


def _entry(entries: Sequence[int], pc: int) -> int:
    """The highest function entry at or below `pc` (`pc` itself when there is none)."""
    i = bisect_right(entries, pc) - 1
    return entries[i] if i >= 0 else pc


def profile_fit(image: ElfImage, symtab: SymbolTable, data: GmonData, label: str) -> Fit:
    """Apply the rule (module docstring). Messages are whole lines; errors omit `label` (the caller
    raises GmonlensError(label, error)), warnings start with it."""
    code = [c for c in image.code_sections if c.data]
    if not code or not symtab.symbols:
        return Fit(no_routines=True)
    hi = max(c.address + len(c.data) for c in code)
    where = f"profile does not fit {image.path}"
    errors, warnings = _histogram_fit(image, code, data, label)
    stray = 0
    if data.arcs and not errors:
        # an evenly spread sample says whether arcs stray (cheap on 60,000 arcs); all are looked at
        # before saying that none lands
        step = max(1, len(data.arcs) // ARC_SAMPLE)
        sample = data.arcs[::step]
        stray = sum(1 for a in sample if _stray(symtab, a, hi))
        if stray == len(sample) and step > 1:
            stray = sum(1 for a in data.arcs if _stray(symtab, a, hi))
        if stray == len(data.arcs):
            errors.append(
                f"{where}: none of its {len(data.arcs)} call-graph arcs lands on the program's "
                "routines (profile of another program?)"
            )
    bad = 0
    if data.arcs and not errors:
        bad, looked = arc_code_mismatches(image, symtab, data.arcs)
        if looked and 2 * bad > looked:
            errors.append(
                f"{where}: {bad} of {looked} call-graph arcs looked at do not match its code (a "
                "callee's address must follow its call to mcount, a call site a call instruction; "
                "profile of another program, or rebuilt since?)"
            )
        elif bad:
            warnings.append(
                f"{label}: {bad} of {looked} call-graph arcs looked at do not match the code of "
                f"{image.path} (another toolchain, or rebuilt since?)"
            )
    return Fit(tuple(errors), tuple(warnings), stray, mismatched_arcs=bad)


MAX_RATE = 1_000_000  # Hz: a histogram sampled faster than this is taken as a misread rate


def rate_warnings(data: GmonData, label: str) -> list[str]:
    """One line each about a histogram's implausible sampling rate: 0 Hz (no time can be told
    from the samples: gprof's report prints `inf` seconds, as gmonlens's does) or above MAX_RATE
    (a misread rate). Warnings, apart from the fit: such a profile is still its binary's
    (`gmonlens record` finds it, and diagnoses it)."""
    if not data.histograms:
        return []
    if data.hz == 0:
        return [
            f"{label}: the histogram's sampling rate is 0 Hz: no time can be told from its samples (inf seconds)"
        ]
    if data.hz > MAX_RATE:
        return [
            f"{label}: sampling rate of {data.hz} Hz is implausible (firmware samples at 100 Hz to 10 kHz, "
            "a host at 100 Hz to 1 kHz): its times may be meaningless"
        ]
    return []


def _section_list(code: Sequence[CodeSection]) -> str:
    shown = ", ".join(f"{c.name} 0x{c.address:x}-0x{c.address + len(c.data):x}" for c in code[:6])
    return shown + (f" and {len(code) - 6} more" if len(code) > 6 else "")


def _histogram_fit(
    image: ElfImage, code: Sequence[CodeSection], data: GmonData, label: str
) -> tuple[list[str], list[str]]:
    """The histogram's part of the rule: (errors, warnings). Each record must overlap an executable
    section (firmware may profile its RAM code or flash alone: any executable section will do);
    the union must lie inside the image; where it covers part of `.text` it must reach its end.
    (The rate is `rate_warnings`': a profile of rate 0 is still this binary's.)"""
    errors: list[str] = []
    warnings: list[str] = []
    if not data.histograms:
        return errors, warnings
    where = f"profile does not fit {image.path}"
    lo = min(c.address for c in code)
    hi = max(c.address + len(c.data) for c in code)
    start = (lo if image.image_start is None else min(image.image_start, lo)) // 4 * 4
    for h in data.histograms:
        if not any(h.low_pc < c.address + len(c.data) and h.high_pc > c.address for c in code):
            errors.append(
                f"{where}: its histogram covers 0x{h.low_pc:x}-0x{h.high_pc:x}, outside every executable "
                f"section ({_section_list(code)}) (profile of another program?)"
            )
            return errors, warnings
    low = min(h.low_pc for h in data.histograms)
    high = max(h.high_pc for h in data.histograms)
    if high > (hi + 3) // 4 * 4:
        errors.append(
            f"{where}: its histogram ends at 0x{high:x} but the program's code ends at 0x{hi:x} "
            "(profile of another program, or rebuilt since?)"
        )
    elif low < start:
        errors.append(
            f"{where}: its histogram starts at 0x{low:x} but the program's image starts at "
            f"0x{start:x} (profile of another program?)"
        )
    elif not any(h.low_pc < image.text_end and h.high_pc > image.text_start for h in data.histograms):
        pass  # the histogram covers another executable section (RAM code, flash): nothing to hold it to
    elif high < image.text_end:
        errors.append(
            f"{where}: its histogram ends at 0x{high:x}, before the end of .text "
            f"(0x{image.text_end:x}) (profile of another program, or rebuilt since?)"
        )
    elif low > image.text_start:
        warnings.append(
            f"{label}: histogram starts at 0x{low:x}, after the start of {image.path}'s "
            f".text (0x{image.text_start:x}): early routines get no samples"
        )
    return errors, warnings


def describe(fit: Fit) -> str:
    """Why a fit is not exact, in a few words (for discovery's messages)."""
    if fit.errors:
        return fit.errors[0]
    if fit.no_routines:
        return "has no routines"
    if fit.warnings:
        return fit.warnings[0]
    if fit.stray_arcs:
        return f"{fit.stray_arcs} call-graph arcs land outside its routines"
    return f"{fit.mismatched_arcs} call-graph arcs do not match its code" if fit.mismatched_arcs else "fits"
