"""Whether a JSON value is an instance of a Python type built from TypedDicts (the payload types of
`gmonlens_lsp.wire`): exactly the TypedDict's keys (all required but those of a `total=False` part), each
value of its annotated type; `float` takes JSON integers too (Python's `round` may give `2.0` or
`2`, JSON keeps the difference, a client does not). Records which TypedDicts it met, so a test can
tell that every payload type has an example."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints


def is_typeddict(tp: Any) -> bool:
    return typing.is_typeddict(tp)


class Checker:
    def __init__(self) -> None:
        self.seen: set[type] = set()  # the TypedDicts an instance of was checked

    def errors(self, value: Any, tp: Any, where: str = "$") -> list[str]:
        """What in `value` does not fit `tp` (empty: it fits), each with its JSON path."""
        if tp is Any:
            return []
        if tp is None or tp is type(None):
            return [] if value is None else [f"{where}: {value!r} is not null"]
        origin = get_origin(tp)
        if origin in (Union, types.UnionType):
            options = [self.errors(value, t, where) for t in get_args(tp)]
            return [] if any(not e for e in options) else [f"{where}: {value!r} fits none of {tp}"]
        if origin is Literal:
            return [] if value in get_args(tp) else [f"{where}: {value!r} is not one of {get_args(tp)}"]
        if origin is list:
            if not isinstance(value, list):
                return [f"{where}: {value!r} is not a list"]
            (item,) = get_args(tp)
            return [e for i, v in enumerate(value) for e in self.errors(v, item, f"{where}[{i}]")]
        if origin is tuple:
            args = get_args(tp)
            if not isinstance(value, list) or len(value) != len(args):
                return [f"{where}: {value!r} is not a list of {len(args)}"]
            return [
                e
                for i, (v, t) in enumerate(zip(value, args, strict=True))
                for e in self.errors(v, t, f"{where}[{i}]")
            ]
        if is_typeddict(tp):
            return self._record(value, tp, where)
        return self._scalar(value, tp, where)

    def _record(self, value: Any, tp: Any, where: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not an object ({tp.__name__})"]
        self.seen.add(tp)
        hints = get_type_hints(tp)
        out = [f"{where}: {tp.__name__} has no key {k!r}" for k in value if k not in hints]
        required = getattr(tp, "__required_keys__", hints.keys())  # a total=False part may be absent
        out += [
            f"{where}: {tp.__name__}'s key {k!r} is missing"
            for k in hints
            if k not in value and k in required
        ]
        for k, t in hints.items():
            if k in value:
                out += self.errors(value[k], t, f"{where}.{k}")
        return out

    @staticmethod
    def _scalar(value: Any, tp: Any, where: str) -> list[str]:
        if tp is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif tp is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif tp in (str, bool):
            ok = isinstance(value, tp)
        else:
            raise TypeError(f"{where}: no rule for {tp!r}")
        return [] if ok else [f"{where}: {value!r} is not a {tp.__name__}"]
