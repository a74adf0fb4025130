"""What an executable says, before it runs, about the profile it can write (read through its
`Program`, the engine's facade: nothing else opens it).

- Profiling calls: GCC's -pg makes every routine call the profiler at entry: `mcount` (x86-64,
  i386), `_mcount` (AArch64, others), `__gnu_mcount_nc` (ARM), `__fentry__` (x86 -mfentry), or
  `__mcount`; the symbol table names it (imported from the C library, or defined in a static
  program). None of them: no unit of the program was compiled with -pg, and no call is counted.
- gprof's start-up: linking with -pg takes gcrt1.o instead of crt1.o/Scrt1.o, whose
  `__gmon_start__` calls `__monstartup` and registers `_mcleanup`, which writes gmon.out at exit.
  Without them (compiled with -pg, linked without) the program calls mcount, but nothing records
  or writes a profile: no gmon.out at all.
- Units compiled without -pg: GCC records its options in each compilation unit's
  DW_AT_producer (with -g; `-grecord-gcc-switches`, the default since GCC 4.8). GCC 12 records
  -pg (and -p) as `-p`, older GCCs as `-pg`: a unit whose producer lists options but neither
  was compiled without profiling calls, and its routines get no call counts (their time is still
  sampled). A producer with no options recorded (clang, -gno-record-gcc-switches, an assembler's
  "GNU AS 2.40") says nothing either way: such units are counted as unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmonlens.common.errors import GmonlensError, reason
from gmonlens.dwarf.producers import UnitProducer, Unsupported
from gmonlens.load.program import Program
from gmonlens.runs.arcs import ArcPlan, plan_arcs

PROFILING_CALLS = ("mcount", "_mcount", "__gnu_mcount_nc", "__fentry__", "__mcount")
STARTUP = ("__monstartup", "_mcleanup", "monstartup")
SANITIZERS = ("__asan_init", "__tsan_init", "__msan_init")  # runtimes that refuse other preloads first


@dataclass(frozen=True)
class Unit:
    """A compilation unit, named as its DWARF entry names it."""

    name: str
    comp_dir: str
    producer: str


@dataclass(frozen=True)
class Preflight:
    """An executable's profiling set-up (module docstring)."""

    binary: str
    machine: str
    address_size: int
    profiling_calls: tuple[str, ...]  # the profiling-call symbols it names
    startup_linked: bool  # gprof's start-up (__monstartup, _mcleanup) is linked
    static: bool  # no shared library needed (LD_PRELOAD cannot reach it)
    units: int  # compilation units with a DWARF entry
    units_without_pg: tuple[Unit, ...]
    units_unknown: int  # units whose producer records no options
    producers_problem: str | None  # why the producers could not be read
    sanitizer: str | None  # a sanitizer runtime's symbol, when linked
    arcs: ArcPlan

    @property
    def can_profile(self) -> bool:
        """Whether a run can write a profile with call counts (calls and start-up)."""
        return bool(self.profiling_calls) and self.startup_linked


def compiled_with_pg(producer: str) -> bool | None:
    """Whether a unit's DW_AT_producer says it was compiled with -pg (module docstring); None
    when it records no options."""
    words = producer.split()
    if not any(w.startswith("-") for w in words):
        return None
    return "-p" in words or "-pg" in words


def _symbol_base(name: str) -> str:
    return name.split("@", 1)[0]


def _units(program: Program) -> tuple[list[UnitProducer], str | None]:
    try:
        return program.unit_producers(), None
    except Unsupported as e:
        return [], f"DWARF not read ({e})"
    except GmonlensError as e:
        return [], reason(e)


def preflight(program: Program, arcs: int | str | None = None) -> Preflight:
    """Read `program`'s profiling set-up (raises ElfError for what is not a usable executable).
    `arcs` is `plan_arcs`' request (None/"auto", "default" or a number of entries)."""
    image = program.image
    names = {_symbol_base(s.name) for s in image.symbols}
    defined = {_symbol_base(s.name) for s in image.symbols if s.class_letter not in "Uw"}
    calls = tuple(n for n in PROFILING_CALLS if n in names)
    startup = any(n in names for n in STARTUP) or "__gmon_start__" in defined
    units, problem = _units(program)
    without, unknown = [], 0
    for u in units:
        verdict = compiled_with_pg(u.producer)
        if verdict is None:
            unknown += 1
        elif not verdict:
            without.append(Unit(u.name, u.comp_dir, u.producer))
    return Preflight(
        binary=program.path,
        machine=image.machine,
        address_size=image.address_size,
        profiling_calls=calls,
        startup_linked=startup,
        static=not program.needed_libraries(),
        units=len(units),
        units_without_pg=tuple(without),
        units_unknown=unknown,
        producers_problem=problem,
        sanitizer=next((n for n in SANITIZERS if n in names), None),
        arcs=plan_arcs(image, arcs),
    )
