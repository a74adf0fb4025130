"""What a recording did and found: the frozen records `recording.record` returns
(`record_json.to_json` is their document)."""

from __future__ import annotations

from dataclasses import dataclass

from gmonlens.runs.arcs import ArcPlan
from gmonlens.runs.collect import ProcessProfile
from gmonlens.runs.command import ResolvedCommand
from gmonlens.runs.diagnose import Diagnosis
from gmonlens.runs.launch import RunOutcome
from gmonlens.runs.preflight import Preflight
from gmonlens.runs.processes import ProcessHistory
from gmonlens.runs.summary import BinarySummary

NO_PROFILE = 125  # exit status: the command ran, but no usable profile was made


@dataclass(frozen=True)
class Helper:
    """The helper library as this recording used it."""

    used: bool
    path: str | None
    compiler: tuple[str, ...]
    problem: str | None  # why it was not used


@dataclass(frozen=True)
class Precision:
    """The repeat loop (`--runs`, `--precision`)."""

    target_percent: float | None
    max_runs: int
    binary: str | None  # the binary whose routines were watched
    history: tuple[tuple[int, float | None, float], ...]  # (run, worst error %, samples) after each run

    @property
    def runs(self) -> int:
        return len(self.history)

    @property
    def achieved_percent(self) -> float | None:
        return self.history[-1][1] if self.history else None

    @property
    def met(self) -> bool:
        a = self.achieved_percent
        return self.target_percent is not None and a is not None and a <= self.target_percent


@dataclass(frozen=True)
class Recording:
    """Everything one `record` did and found; `record_json.to_json` is its document."""

    command: ResolvedCommand
    cwd: str
    out_dir: str
    preflight: Preflight | None
    helper: Helper
    arcs: ArcPlan | None
    runs: tuple[RunOutcome, ...]
    profiles: tuple[ProcessProfile, ...]
    binaries: tuple[BinarySummary, ...]
    processes: tuple[ProcessHistory, ...]
    precision: Precision
    diagnosis: tuple[Diagnosis, ...]
    usable: bool
    left_alone: tuple[str, ...] = ()  # profile files in DIR not made by this recording (not read)

    @property
    def command_status(self) -> int:
        """The command's exit status as a shell reports it: the first run's that was not 0."""
        return next((r.status for r in self.runs if r.status), 0)

    @property
    def exit_status(self) -> int:
        """`gmonlens record`'s: the command's own, or NO_PROFILE when no usable profile was made."""
        return self.command_status if self.usable else NO_PROFILE
