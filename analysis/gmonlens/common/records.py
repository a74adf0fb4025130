"""Making many frozen records quickly (pure).

A frozen dataclass's `__init__` sets each field through `object.__setattr__` (a name lookup and a
call per field: about 6 us for a 21-field `Routine`). `maker(cls)` gives a function taking the
fields positionally, in declaration order, that sets a slotted class's slots through their
descriptors instead: an object equal to `cls(*values)`, in about a third of the time. Used where
tens of thousands of records are made at once (-l's line symbols and their routines).

Faster still (44,000 `Routine`s: 44-47 ms through the descriptors, 19-30 ms so; `Symbol`s 18-24
-> 13 ms; loops on the bench machine, 2026-11-28): the object is made as an instance of a plain
twin class with the same slots in the same order (so the same memory layout), its slots set by
ordinary attribute stores, then its `__class__` set to `cls` (Python allows that between classes
of one layout). A class whose layout the twin does not match (Python refuses the assignment) is
made through the descriptors."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


@functools.cache
def maker(cls: type[T]) -> Callable[..., T]:
    """`cls(*values)`, made by setting the slots (module docstring). `cls` itself for a class
    this does not fit: not a slotted dataclass, or one with a `__post_init__`."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__") or "__slots__" not in vars(cls):
        return cls
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    if set(names) != set(vars(cls)["__slots__"]):
        return cls  # a slot no field sets, or a field without a slot
    twin = _twin(cls)
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_twin": twin}
    scope.update({f"_set{i}": vars(cls)[n].__set__ for i, n in enumerate(names)})
    params = ", ".join(f"v{i}" for i in range(len(names)))
    if twin is not None:  # names are fields: identifiers
        body = "".join(f"    obj.{n} = v{i}\n" for i, n in enumerate(names))
        exec(
            f"def make({params}):\n    obj = _new(_twin)\n{body}    obj.__class__ = _cls\n    return obj\n",
            scope,
        )
    else:
        body = "".join(f"    _set{i}(obj, v{i})\n" for i in range(len(names)))
        exec(f"def make({params}):\n    obj = _new(_cls)\n{body}    return obj\n", scope)
    make: Callable[..., T] = scope["make"]
    make.__doc__ = f"{cls.__name__}({params}), made by setting its slots (gmonlens.common.records)"
    return make


def _twin(cls: type) -> type | None:
    """A plain class with `cls`'s slots in its order, whose instances may become `cls`'s (set
    their `__class__`); None where Python refuses that (another layout)."""
    twin = type(
        f"_{cls.__name__}Slots", (), {"__slots__": tuple(vars(cls)["__slots__"]), "__module__": __name__}
    )
    probe: Any = object.__new__(twin)
    try:
        probe.__class__ = cls
    except TypeError:
        return None
    return twin
