"""Whether a profile was written by a binary: the one fit rule, used by the CLI and the server (pure).

What real toolchains write (x86-64, i386 and AArch64; PIE and non-PIE; static and dynamic; from a
toy to 20,000 routines): glibc's histogram runs from the start of the executable image (the lowest
PT_LOAD address: 0 in a PIE, 0x400000 or 0x8048000 otherwise) to `etext` rounded up to 4 (the end of
the last code section, `.fini`). Older libcs and other platforms start it at `.text` (or `_start`).
Call-graph arcs are recorded only for callers inside that range, so every arc lands on a routine.

A profile FITS a binary when
- the union of its histogram records starts at or after the image's start (rounded down to 4) and
  ends at or before the end of the code (rounded up to 4), overlapping the code, and
- some of its arcs land on the binary's routines (when it has arcs).
Anything else is an error: the profile belongs to another program. It fits EXACTLY when, in
addition, the histogram covers all of `.text` (starts at or before it, ends at or after its end)
and every arc lands on routines: that is what a binary writes for its own run. A profile that fits
only loosely comes from another build of the program (or another program of the same layout);
the CLI warns and goes on, the server's discovery never picks such a binary by itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from .elf import ElfImage
from .model import GmonData
from .symbols import SymbolTable

ARC_SAMPLE = 4096  # arcs looked at to tell whether some stray


@dataclass(frozen=True)
class Fit:
    """The verdict: `errors` (not this program's profile) and `warnings` (fits loosely)."""

    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    stray_arcs: int = 0  # arcs (of a sample of ARC_SAMPLE) with an end outside every routine
    no_routines: bool = False  # the binary has no code or no routines: nothing to fit (gprof: empty report)

    @property
    def fits(self) -> bool:
        return not self.errors and not self.no_routines

    @property
    def exact(self) -> bool:
        return self.fits and not self.warnings and not self.stray_arcs


def profile_fit(image: ElfImage, symtab: SymbolTable, data: GmonData, label: str) -> Fit:
    """Apply the rule (module docstring). Messages are whole lines; errors omit `label` (the caller
    raises GmonlensError(label, error)), warnings start with it."""
    code = [c for c in image.code_sections if c.data]
    if not code or not symtab.symbols:
        return Fit(no_routines=True)
    lo = min(c.address for c in code)
    hi = max(c.address + len(c.data) for c in code)
    hi_rounded = (hi + 3) // 4 * 4
    start = (lo if image.image_start is None else min(image.image_start, lo)) // 4 * 4
    errors: list[str] = []
    warnings: list[str] = []
    where = f"profile does not fit {image.path}"
    for h in data.histograms:
        if h.high_pc <= lo or h.low_pc >= hi:
            errors.append(
                f"{where}: its histogram covers 0x{h.low_pc:x}-0x{h.high_pc:x} "
                f"but the program's code is at 0x{lo:x}-0x{hi:x} (profile of another program?)"
            )
    if data.histograms and not errors:
        # a file may hold several records: their union is what must fit
        low = min(h.low_pc for h in data.histograms)
        high = max(h.high_pc for h in data.histograms)
        if high > hi_rounded:
            errors.append(
                f"{where}: its histogram ends at 0x{high:x} but the program's code ends at 0x{hi:x} "
                "(profile of another program, or rebuilt since?)"
            )
        elif low < start:
            errors.append(
                f"{where}: its histogram starts at 0x{low:x} but the program's image starts at "
                f"0x{start:x} (profile of another program?)"
            )
        else:
            if high < image.text_end:
                warnings.append(
                    f"{label}: {where}: its histogram ends at 0x{high:x}, before the end of .text "
                    f"(0x{image.text_end:x}); profile of another program, or rebuilt since?"
                )
            if low > image.text_start:
                warnings.append(
                    f"{label}: histogram starts at 0x{low:x}, after the start of {image.path}'s "
                    f".text (0x{image.text_start:x}): early routines get no samples"
                )
    stray = 0
    if data.arcs and not errors:
        # an evenly spread sample says whether arcs stray (cheap on 60,000 arcs); all are looked at
        # before saying that none lands
        step = max(1, len(data.arcs) // ARC_SAMPLE)
        sample = data.arcs[::step]
        stray = sum(1 for a in sample if symtab.lookup(a.from_pc) < 0 or symtab.lookup(a.self_pc) < 0)
        if stray == len(sample) and step > 1:
            stray = sum(1 for a in data.arcs if symtab.lookup(a.from_pc) < 0 or symtab.lookup(a.self_pc) < 0)
        if stray == len(data.arcs):
            errors.append(
                f"{where}: none of its {len(data.arcs)} call-graph arcs lands on the program's "
                "routines (profile of another program?)"
            )
    return Fit(tuple(errors), tuple(warnings), stray)


def describe(fit: Fit) -> str:
    """Why a fit is not exact, in a few words (for discovery's messages)."""
    if fit.errors:
        return fit.errors[0]
    if fit.no_routines:
        return "has no routines"
    if fit.warnings:
        return fit.warnings[0]
    return f"{fit.stray_arcs} call-graph arcs land outside its routines" if fit.stray_arcs else "fits"
