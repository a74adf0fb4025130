"""Typed reading of one mapping of a budget file, every problem kept as one line (pure).

`Problems` collects the lines (`PATH:LINE: WHERE: message`); `Fields` reads one mapping's keys
with the type each must have, records a line for each key that is missing, unknown or of the
wrong type or range, and returns None for it (so that every problem of a file is reported at
once, not the first only).

Types, as YAML 1.1 (PyYAML) gives them and as a user writes them:
- a count: a whole number >= 0, also written `1_000_000`, `1,000,000`, `1e6` (a string to YAML);
- a number: finite; a percent also as `"30%"`;
- a name: a non-empty string (a routine name that YAML reads as something else, `on` or `1e3`,
  must be quoted: the message says so);
- a flag: true or false.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

T = TypeVar("T")
MAX_COUNT = (1 << 63) - 1
MAX_NAME = 4096
MAX_LIST = 10_000
_COUNT_TEXT = re.compile(r"\d[\d_,]*|\d+(?:\.\d*)?[eE]\+?\d+")


class FieldError(Exception):
    """A value of the wrong type or range (the message says what was expected)."""


def _shown(value: object) -> str:
    text = repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else None
    if text is None:
        text = {dict: "a mapping", list: "a list", type(None): "nothing"}.get(type(value), str(value))
    return text if len(text) <= 60 else text[:57] + "..."


def as_count(value: object) -> int:
    """A whole number >= 0 (module doc); FieldError otherwise."""
    number: float | int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value == int(value):
        number = int(value)
    elif isinstance(value, str) and _COUNT_TEXT.fullmatch(value.strip()):
        text = value.strip().replace("_", "").replace(",", "")
        as_float = float(text)
        number = int(text) if text.isdigit() else int(as_float) if as_float == int(as_float) else None
    if number is None or not 0 <= number <= MAX_COUNT:
        raise FieldError(f"a whole number >= 0 is expected, not {_shown(value)}")
    return int(number)


def as_number(value: object, lo: float, hi: float, percent: bool = False) -> float:
    """A finite number in [lo, hi] (`percent`: "30%" too); FieldError otherwise."""
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip().removesuffix("%").strip() if percent else value.strip()
        try:
            number = float(text.replace("_", ""))
        except ValueError:
            number = None
    if number is None or not math.isfinite(number):
        raise FieldError(f"a number is expected, not {_shown(value)}")
    if not lo <= number <= hi:
        raise FieldError(f"a number from {lo:g} to {hi:g} is expected, not {number:g}")
    return number


def as_name(value: object, what: str = "a routine name") -> str:
    """A non-empty string of at most MAX_NAME characters; FieldError otherwise."""
    if isinstance(value, str) and value.strip() and len(value) <= MAX_NAME and "\0" not in value:
        return value.strip()
    if isinstance(value, (bool, int, float)) or value is None:
        raise FieldError(f"{what} is expected, not {_shown(value)} (quote a name YAML reads as another type)")
    raise FieldError(f"{what} is expected, not {_shown(value)}")


def as_names(value: object, what: str = "routine names") -> tuple[str, ...]:
    """One name or a non-empty list of them."""
    if isinstance(value, list):
        if not value:
            raise FieldError(f"{what} are expected, not an empty list")
        if len(value) > MAX_LIST:
            raise FieldError(f"at most {MAX_LIST} names")
        return tuple(as_name(v, "a name") for v in value)
    return (as_name(value, what),)


class Problems:
    """The problem lines of one budget file, by line (in the order found on one line)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._found: list[tuple[int, str]] = []

    def add(self, line: int, where: str, message: str) -> None:
        at = f"{self.path}:{line}" if line else self.path
        self._found.append((line, f"{at}: {where}: {message}" if where else f"{at}: {message}"))

    @property
    def lines(self) -> list[str]:
        return [text for _, text in sorted(self._found, key=lambda f: f[0])]


def _unknown(key: object, known: Collection[str]) -> str:
    near = difflib.get_close_matches(str(key), sorted(known), n=1)
    hint = f" (did you mean '{near[0]}'?)" if near else f" (known: {', '.join(sorted(known))})"
    return f"unknown key {_shown(key)}{hint}"


class Fields:
    """Reads one mapping (`where` and `line` name it in messages); unknown keys are problems."""

    def __init__(
        self,
        mapping: Mapping[Any, Any],
        problems: Problems,
        line: int,
        where: str,
        known: Collection[str],
        key_line: Callable[[object], int] | None = None,
    ) -> None:
        self.mapping, self.problems, self.line, self.where = mapping, problems, line, where
        self.key_line = key_line
        self.failed = False
        for key in mapping:
            if key not in known:
                self.fail(_unknown(key, known), key)

    def fail(self, message: str, key: object = None) -> None:
        """Record a problem (of `key`'s entry when given: its line when known)."""
        self.failed = True
        line = (self.key_line(key) if self.key_line is not None and key is not None else 0) or self.line
        self.problems.add(line, self.where, message)

    def get(self, key: str, read: Callable[[object], T], *, required: bool = False) -> T | None:
        """`read(value)` of `key` (None when absent; a problem when `required`)."""
        if key not in self.mapping:
            if required:
                self.fail(f"'{key}' is missing")
            return None
        try:
            return read(self.mapping[key])
        except FieldError as e:
            self.fail(f"'{key}': {e}", key)
            return None

    def has(self, key: str) -> bool:
        return key in self.mapping


def as_flag(value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise FieldError(f"true or false is expected, not {_shown(value)}")


def as_choice(*options: str) -> Callable[[object], str]:
    def read(value: object) -> str:
        if isinstance(value, str) and value.strip().lower() in options:
            return value.strip().lower()
        raise FieldError(f"one of {', '.join(options)} is expected, not {_shown(value)}")

    return read
