"""Typed, defaulted settings: `gmonlens.yaml` (snake_case) overridden by the client's `gmonlens`
section (camelCase: initializationOptions and workspace/configuration).

Every bad value falls back to its default (or to the file's value) and yields one problem message;
unknown keys are reported, never fatal. Client values that are null, "", [] or {} mean "not set":
the file decides (`staticCallGraph: false` is a value: it turns the file's `true` off).
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from gmonlens.common.errors import GmonlensError

from .userfiles import SETTINGS_CAP, read_regular

CONFIG_FILE = "gmonlens.yaml"
DEFAULT_LENS_TITLE = "{percent}% · self {self} s · total {total} s{few} · {calls} calls{cycle}"
PLACEHOLDERS = ("percent", "self", "total", "calls", "cycle", "name", "self_err", "total_err", "samples",
                "total_samples", "few")  # fmt: skip
DEFAULT_LINE_HEAT_LABEL = "{seconds} s · {percent}%{few}"
HEAT_PLACEHOLDERS = ("seconds", "percent", "routine", "line", "err", "samples", "few")
DEFAULT_LINE_HEAT_MIN_PERCENT = 1.0


@dataclass(frozen=True)
class Baseline:
    """The profile to compare with: profile files/globs and, optionally, the binary that wrote
    them (default: the current binary)."""

    profiles: tuple[str, ...]
    binary: str | None = None


MAX_TITLE = 500  # characters of a lens title template
MAX_WIDTH = 100  # a placeholder's width or precision
MAX_PATH = 4096  # characters of a path or glob
MAX_PATHS = 256  # profiles entries, source_map entries
# [[fill]align][width][.precision][s]: the values are strings
_SPEC = re.compile(r"(?:[^{}]?[<>^])?(\d*)(?:\.(\d+))?s?", re.DOTALL)


@dataclass(frozen=True)
class Settings:
    """Effective settings of one workspace folder. Paths are as written (resolved by discovery)."""

    binary: str | None = None
    profiles: tuple[str, ...] = ()
    static_call_graph: bool = False
    clones_apart: bool = False  # `clones: apart`: GCC clones as routines of their own (not gprof's figures)
    source_map: tuple[tuple[str, str], ...] = ()
    lens_title: str = DEFAULT_LENS_TITLE
    baseline: Baseline | None = None
    pin_folder: str | None = None  # where pinned baselines are kept (default: pinstore.data_root())
    line_heat_label: str = DEFAULT_LINE_HEAT_LABEL  # inlay hint at the end of a hot line
    line_heat_min_percent: float = DEFAULT_LINE_HEAT_MIN_PERCENT  # hot: at least this % of the total
    budgets: str | None = None  # the budget file (`gmonlens check`'s; default: found by name, budgets.py)
    sources: tuple[str, ...] = field(default=(), compare=False)  # where values came from, for logs
    trusted: bool = False  # the client says the workspace is trusted (never gmonlens.yaml itself)


_YAML_KEYS = {"binary": "binary", "profiles": "profiles", "static_call_graph": "static_call_graph",
              "clones": "clones_apart",
              "source_map": "source_map", "lens_title": "lens_title", "baseline": "baseline",
              "pin_folder": "pin_folder", "line_heat_label": "line_heat_label", "line_heat_min_percent": "line_heat_min_percent",
              "budgets": "budgets"}  # fmt: skip
_CLIENT_KEYS = {"binary": "binary", "profiles": "profiles", "staticCallGraph": "static_call_graph",
                "clones": "clones_apart",
                "sourceMap": "source_map", "lensTitle": "lens_title", "baseline": "baseline",
                "pinFolder": "pin_folder", "lineHeatLabel": "line_heat_label", "lineHeatMinPercent": "line_heat_min_percent",
                "budgets": "budgets", "trustedWorkspace": "trusted"}  # fmt: skip


def _check(name: str, value: Any, origin: str, written: str | None = None) -> tuple[Any, str | None]:
    """Validate one value; returns (converted value or None when unusable/unset, problem).
    `written`: the key as the user wrote it (for the message)."""
    bad = f"{origin}: `{written or name}` "
    if value is None:
        return None, None
    if name in ("binary", "pin_folder", "budgets"):
        if not isinstance(value, str):
            what = {"binary": "the profiled executable", "pin_folder": "a folder for pinned baselines",
                    "budgets": "a budget file"}[name]  # fmt: skip
            return None, bad + f"must be a string ({what}); ignored"
        if path_problem(value):
            return None, bad + f"{path_problem(value)}; ignored"
        return (value.strip() or None), None
    if name == "profiles":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return None, bad + "must be a file name or a list of file names/globs; ignored"
        problems = [p for p in (path_problem(v) for v in value[:MAX_PATHS]) if p]
        if len(value) > MAX_PATHS or problems:
            return None, bad + (
                problems[0] if problems else f"has more than {MAX_PATHS} entries"
            ) + "; ignored"
        items = tuple(v.strip() for v in value if v.strip())
        return (items or None), None
    if name in ("static_call_graph", "trusted"):
        if not isinstance(value, bool):
            return None, bad + "must be true or false; ignored"
        return value, None
    if name == "clones_apart":
        if value not in ("gprof", "apart"):
            return None, bad + 'must be "gprof" (folded as gprof does) or "apart"; ignored'
        return value == "apart", None
    if name == "source_map":
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            return None, bad + "must map recorded path prefixes to workspace paths (strings); ignored"
        problems = [p for p in (path_problem(x) for kv in value.items() for x in kv) if p]
        if len(value) > MAX_PATHS or problems:
            return None, bad + (
                problems[0] if problems else f"has more than {MAX_PATHS} entries"
            ) + "; ignored"
        return (tuple(sorted(value.items())) or None), None
    if name == "baseline":
        return _check_baseline(value, bad)
    if name in ("lens_title", "line_heat_label"):
        if not isinstance(value, str):
            return None, bad + "must be a string; ignored"
        if not value.strip():
            return None, None
        known = PLACEHOLDERS if name == "lens_title" else HEAT_PLACEHOLDERS
        problem = template_problem(value, known)
        if problem:
            return None, bad + f"{problem}; ignored (placeholders: " + ", ".join(
                "{" + p + "}" for p in known
            ) + f", with an optional width up to {MAX_WIDTH}, e.g. {{{known[0]}:>6}})"
        return value, None
    if name == "line_heat_min_percent":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
            return None, bad + "must be a number from 0 to 100 (percent of the total time); ignored"
        return float(value), None
    return None, None


def _check_baseline(value: Any, bad: str) -> tuple[Baseline | None, str | None]:
    """`baseline`: profiles (a string or list) or a mapping {profiles, binary}."""
    if isinstance(value, (str, list)):
        value = {"profiles": value}
    if not isinstance(value, Mapping) or set(value) - {"profiles", "binary"}:
        return None, bad + "must be profile files/globs or a mapping with `profiles` and `binary`; ignored"
    profiles, problem = _check("profiles", value.get("profiles"), "")
    binary, problem2 = _check("binary", value.get("binary"), "")
    if problem or problem2:
        return None, bad + "`profiles` must be file names/globs and `binary` a string; ignored"
    if not profiles:
        return None, None
    return Baseline(profiles, binary), None


def path_problem(value: str) -> str | None:
    """Why a path or glob setting cannot name a file, or None."""
    if "\0" in value:
        return "contains a NUL character"
    if len(value) > MAX_PATH:
        return f"is longer than {MAX_PATH} characters"
    return None


def template_problem(template: str, known: tuple[str, ...] = PLACEHOLDERS) -> str | None:
    """Why a lens title template is refused, or None: only the known placeholders by name, no
    attribute or index access, no conversion, a plain string format with bounded width/precision."""
    if len(template) > MAX_TITLE:
        return f"is longer than {MAX_TITLE} characters"
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        return f"is not a valid template ({exc})"
    for _literal, name, spec, conversion in parts:
        if name is None:
            continue
        if name not in known:
            return f"has a bad placeholder: unknown {{{name}}}"
        if conversion:
            return f"has a conversion (!{conversion}) in {{{name}}}"
        match = _SPEC.fullmatch(spec or "")
        if match is None:
            return f"has an unsupported format {{{name}:{spec}}}"
        if any(n and (len(n) > 3 or int(n) > MAX_WIDTH) for n in match.groups()):
            return f"has a width or precision over {MAX_WIDTH} in {{{name}:{spec}}}"
    try:
        template.format(**dict.fromkeys(known, ""))
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        return f"is not a valid template ({exc})"
    return None


def _apply(base: Settings, raw: Any, keys: Mapping[str, str], origin: str) -> tuple[Settings, list[str]]:
    problems: list[str] = []
    if raw is None:
        return base, problems
    if not isinstance(raw, Mapping):
        return base, [f"{origin}: settings must be a mapping; ignored"]
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        name = keys.get(str(key))
        if name is None:
            problems.append(f"{origin}: unknown setting `{key}` ignored")
            continue
        checked, problem = _check(name, value, origin, str(key))
        if problem:
            problems.append(problem)
        if checked is None:
            continue
        changes[name] = checked
    if changes:
        base = replace(base, **changes, sources=(*base.sources, origin))
    return base, problems


def read_config_file(folder: str, trusted: bool = True) -> tuple[Settings, list[str]]:
    """Settings from `<folder>/gmonlens.yaml` (defaults when absent; unless `trusted`, ignored when
    it is a link leading outside the folder)."""
    path = os.path.join(folder, CONFIG_FILE)
    if not os.path.lexists(path):
        return Settings(), []
    if not trusted and outside(folder, CONFIG_FILE):
        return Settings(), [f"{path}: {UNTRUSTED}; settings ignored"]
    try:  # a regular file (not a FIFO, not /dev/zero), at most SETTINGS_CAP bytes
        text = read_regular(path, SETTINGS_CAP, "settings file").decode("utf-8")
    except GmonlensError as exc:
        return Settings(), [f"{exc}; settings ignored"]
    except UnicodeDecodeError as exc:
        return Settings(), [
            f"{path}: cannot read: not UTF-8 ({exc.reason} at byte {exc.start}); settings ignored"
        ]
    try:
        raw = yaml.safe_load(text)
    except RecursionError:
        return Settings(), [f"{path}: cannot read: nested too deeply; settings ignored"]
    except Exception as exc:  # yaml.YAMLError, and whatever else a hostile document provokes
        return Settings(), [f"{path}: cannot read: {_yaml_reason(exc)}; settings ignored"]
    if raw is None:
        return Settings(), []
    return _apply(Settings(), raw, _YAML_KEYS, path)


def _yaml_reason(exc: Exception) -> str:
    """Why YAML refused a document, without quoting it (PyYAML's text shows the offending line:
    the bytes of whatever file gmonlens.yaml links to): the problem and its line and column."""
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if isinstance(problem, str) and mark is not None:
        problem = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", problem)  # quoted tokens are the document's
        return f"{problem[:200]} at line {mark.line + 1}, column {mark.column + 1}"
    return type(exc).__name__


def client_section(raw: Any) -> Any:
    """The `gmonlens` section of initializationOptions or a didChangeConfiguration payload."""
    if isinstance(raw, Mapping) and isinstance(raw.get("gmonlens"), Mapping):
        return raw["gmonlens"]
    return raw


def effective_settings(folder: str, client: Any) -> tuple[Settings, list[str]]:
    """gmonlens.yaml of `folder`, then the client's values over it. Unless the client says the
    workspace is trusted (`trustedWorkspace`), paths that gmonlens.yaml names leading outside the
    folder (after links) are dropped, with one problem each (`fence`)."""
    section = client_section(client)
    own, _ = _apply(Settings(), section, _CLIENT_KEYS, "")
    base, problems = read_config_file(folder, own.trusted)
    merged, more = _apply(base, section, _CLIENT_KEYS, "client settings (gmonlens)")
    if not merged.trusted:
        merged, fenced = fence(folder, merged, own)
        more += fenced
    return merged, problems + more


# how the language server's user trusts a folder (gmonlens mcp says its own: --trust-workspace)
TRUST_FIX = "(VS Code: trust the folder; other clients: trustedWorkspace in initializationOptions)"
UNTRUSTED = f"leads outside the workspace folder: read only in a trusted workspace {TRUST_FIX}"


def outside(folder: str, path: str) -> bool:
    """Whether `path` (absolute, or relative to `folder`; links resolved) leads outside `folder`."""
    root = os.path.realpath(folder)
    full = os.path.realpath(
        os.path.join(folder, os.path.expanduser(path.replace("${workspaceFolder}", folder)))
    )
    return full != root and not full.startswith(root.rstrip(os.sep) + os.sep)


def outside_pattern(folder: str, pattern: str) -> bool:
    """Whether the files a path or glob names may lie outside `folder` (its part before the first
    wildcard leads outside; links resolved)."""
    return outside(folder, _fixed_part(pattern))


def _fixed_part(pattern: str) -> str:
    """A glob's directory part before its first wildcard (the pattern itself without one)."""
    parts = pattern.split("/")
    magic = next((i for i, p in enumerate(parts) if any(c in p for c in "*?[")), None)
    return pattern if magic is None else "/".join(parts[:magic]) or "."


def fence(folder: str, s: Settings, client: Settings) -> tuple[Settings, list[str]]:
    """`s` without the paths from gmonlens.yaml (those `client` does not set) that lead outside
    `folder`, and one problem per path dropped."""
    where = os.path.join(folder, CONFIG_FILE)
    problems: list[str] = []
    changes: dict[str, Any] = {}

    def keep(key: str, paths: tuple[str, ...], fixed: bool = False) -> tuple[str, ...]:
        out = []
        for p in paths:
            if outside(folder, _fixed_part(p) if fixed else p):
                problems.append(f"{where}: `{key}` entry {p!r} {UNTRUSTED}; ignored")
            else:
                out.append(p)
        return tuple(out)

    if s.binary and client.binary is None and not keep("binary", (s.binary,)):
        changes["binary"] = None
    if s.pin_folder and client.pin_folder is None and not keep("pin_folder", (s.pin_folder,)):
        changes["pin_folder"] = None  # pins are written there: only inside, unless trusted
    if s.budgets and client.budgets is None and not keep("budgets", (s.budgets,)):
        changes["budgets"] = None
    if s.profiles and client.profiles == ():
        changes["profiles"] = keep("profiles", s.profiles, fixed=True)
    if s.source_map and client.source_map == ():
        targets = keep("source_map", tuple(t for _, t in s.source_map))
        changes["source_map"] = tuple((k, t) for k, t in s.source_map if t in targets)
    if s.baseline is not None and client.baseline is None:
        profiles = keep("baseline", s.baseline.profiles, fixed=True)
        binary = s.baseline.binary if s.baseline.binary and keep("baseline", (s.baseline.binary,)) else None
        changes["baseline"] = Baseline(profiles, binary) if profiles else None
    return (replace(s, **changes) if changes else s), problems
