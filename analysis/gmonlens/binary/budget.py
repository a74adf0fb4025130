"""What one executable may cost: limits on everything a file's own numbers could make us allocate or
loop over (pure).

A size written in a file (a compressed section's decompressed size, a NOBITS section's size, a
line program's rows, DWARF entries, string lengths) is charged here *before* it is used. The
limits scale with the executable's stored size (the bytes it occupies on disk, so a sparse file's
holes do not count), with a floor for small programs: an honest executable of a given size stays
far below them, a hostile one of that size cannot cost more than an honest one could.
Exceeding a limit raises `LimitError`: one line naming the file, the section and the limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gmonlens.common.errors import ElfError

MiB = 1 << 20

# kind -> (floor, numerator, denominator): limit = max(floor, stored * numerator // denominator)
_LIMITS: dict[str, tuple[int, int, int]] = {
    "section bytes": (32 * MiB, 8, 1),  # every section's bytes held, read or decompressed
    "line-table rows": (1 << 20, 1, 2),
    "DWARF entries": (1 << 19, 1, 1),  # debugging information entries and their attributes (~300 B each)
    "string bytes": (16 * MiB, 2, 1),  # symbol names and DWARF strings decoded
}
# one section's own limit where its contents cost far more in memory than their bytes
_SECTION_LIMITS: dict[str, tuple[int, int, int]] = {
    ".debug_abbrev": (1 * MiB, 1, 4),  # each attribute specification (2 bytes) becomes an object
}


class LimitError(ElfError):
    """An executable whose contents exceed what an honest one of its size could need."""


def stored_size(size: int, blocks: int) -> int:
    """Bytes a file occupies: its size, or less when it is sparse (st_blocks is in 512-byte units).
    A file that reports no blocks at all (some filesystems) counts by its size."""
    return min(size, blocks * 512) if blocks else size


@dataclass
class Budget:
    """The limits of one executable (`path`, `stored` bytes on disk) and what was spent so far."""

    path: str
    stored: int
    spent: dict[str, int] = field(default_factory=dict)

    def limit(self, kind: str) -> int:
        floor, num, den = _LIMITS[kind]
        return max(floor, self.stored * num // den)

    def section_limit(self, section: str) -> int:
        """The largest contents `section` may have (before what was already spent is counted)."""
        own = _SECTION_LIMITS.get(section.replace(".zdebug_", ".debug_", 1))
        overall = self.limit("section bytes")
        if own is None:
            return overall
        floor, num, den = own
        return min(overall, max(floor, self.stored * num // den))

    def left(self, kind: str) -> int:
        return self.limit(kind) - self.spent.get(kind, 0)

    def charge(self, kind: str, amount: int, section: str) -> None:
        """Spend `amount` of `kind` for `section`; raises LimitError when the limit is passed."""
        total = self.spent.get(kind, 0) + amount
        if total > self.limit(kind):
            raise self.exceeded(kind, section)
        self.spent[kind] = total

    def charge_section(self, section: str, size: int) -> None:
        """Charge a section's contents (`size` bytes, as its header claims) before reading them."""
        if size > self.section_limit(section):
            raise LimitError(
                self.path,
                f"section {section}: {size} bytes, more than the limit of {self.section_limit(section)} "
                f"bytes for an executable of {self.stored} bytes",
            )
        self.charge("section bytes", size, section)

    def exceeded(self, kind: str, section: str) -> LimitError:
        return LimitError(
            self.path,
            f"section {section}: more {kind} than the limit of {self.limit(kind)} "
            f"for an executable of {self.stored} bytes",
        )
