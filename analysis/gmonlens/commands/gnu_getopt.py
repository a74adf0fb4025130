"""GNU getopt_long's rules over an option table: permuted operands, bundled flags, unique long
prefixes, optional arguments only when attached (`-pmain`, `--flat-profile=main`); and `--help`
lines. gprof's table and what its options mean are `gprof_args`'."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.errors import UsageError

NONE, OPTIONAL, REQUIRED = "none", "optional", "required"


@dataclass(frozen=True)
class Option:
    """One option (letter, long names and argument kind as a getopt_long table has them), with a
    one-line help. `supported=False`: refused with "not supported yet" (flip the entry when the
    mode is implemented)."""

    letter: str  # "" for a long-only option
    longs: tuple[str, ...]
    arg: str  # NONE, OPTIONAL (attached only: -pSPEC, --flat-profile=SPEC) or REQUIRED
    metavar: str
    help: str
    supported: bool = True


class OptionTable:
    """Options by letter and by long name, scanned as getopt_long scans them."""

    def __init__(self, options: Sequence[Option], final: str = "") -> None:
        self.options = tuple(options)
        self.final = tuple(final)  # letters that end the scan
        self.by_letter = {o.letter: o for o in self.options if o.letter}
        self.by_long = {name: o for o in self.options for name in o.longs}

    def help(self) -> str:
        """One line per option, for `--help`."""
        lines = []
        for o in self.options:
            note = "" if o.supported else " (not supported yet)"
            lines.append(f"  {_spelling(o):<36} {o.help}{note}")
        return "\n".join(lines) + "\n"

    def scan(self, argv: Sequence[str]) -> tuple[list[tuple[Option, str | None]], list[str]]:
        """Split argv into (option, argument) pairs and operands, as GNU getopt_long does
        (permuted operands, bundled letters, unique long prefixes). A `final` option ends the
        scan (gprof acts on -h and -v as soon as getopt returns them)."""
        opts: list[tuple[Option, str | None]] = []
        operands: list[str] = []
        i = 0
        while i < len(argv):
            a = argv[i]
            i += 1
            if a == "--":
                operands.extend(argv[i:])
                break
            if a.startswith("--"):
                name, eq, val = a[2:].partition("=")
                exact = name if name in self.by_long else None
                if exact is None:
                    matches = [k for k in self.by_long if k.startswith(name)]
                    if len(matches) > 1:
                        alts = " ".join(f"'--{m}'" for m in matches)
                        raise UsageError(None, f"option '--{name}' is ambiguous; possibilities: {alts}")
                    if not matches:
                        raise UsageError(None, f"unrecognized option '--{name}'")
                    exact = matches[0]
                o = self.by_long[exact]
                if o.arg == NONE and eq:
                    raise UsageError(None, f"option '--{exact}' doesn't allow an argument")
                if o.arg == REQUIRED and not eq:
                    if i >= len(argv):
                        raise UsageError(None, f"option '--{exact}' requires an argument")
                    val, eq = argv[i], "="
                    i += 1
                opts.append((o, val if eq else None))
                if o.letter in self.final:
                    return opts, operands
                continue
            if a.startswith("-") and len(a) > 1:
                j = 1
                while j < len(a):
                    c = a[j]
                    j += 1
                    if c not in self.by_letter:
                        raise UsageError(None, f"invalid option -- '{c}'")
                    o = self.by_letter[c]
                    if o.arg == REQUIRED:
                        if j < len(a):
                            opts.append((o, a[j:]))
                        elif i < len(argv):
                            opts.append((o, argv[i]))
                            i += 1
                        else:
                            raise UsageError(None, f"option requires an argument -- '{c}'")
                        break
                    if o.arg == OPTIONAL:
                        opts.append((o, a[j:] or None))
                        break
                    opts.append((o, None))
                    if c in self.final:
                        return opts, operands
                continue
            operands.append(a)
        return opts, operands


def _spelling(o: Option) -> str:
    short = f"-{o.letter}" if o.letter else ""
    long = f"--{o.longs[0]}" if o.longs else ""
    sarg = {NONE: "", OPTIONAL: f"[{o.metavar}]", REQUIRED: f" {o.metavar}"}[o.arg]
    larg = {NONE: "", OPTIONAL: f"[={o.metavar}]", REQUIRED: f"={o.metavar}"}[o.arg]
    if short and long:
        return f"{short}{sarg}, {long}{larg}"
    return short + sarg if short else long + larg
