"""Making many frozen records quickly (pure).

A frozen dataclass's `__init__` sets each field through `object.__setattr__` (a name lookup and a
call per field: about 6 us for a 21-field `Routine`). `maker(cls)` gives a function taking the
fields positionally, in declaration order, that sets a slotted class's slots through their
descriptors instead: an object equal to `cls(*values)`, in about a third of the time. Used where
tens of thousands of records are made at once (-l's line symbols and their routines)."""

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
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    scope.update({f"_set{i}": vars(cls)[n].__set__ for i, n in enumerate(names)})
    params = ", ".join(f"v{i}" for i in range(len(names)))
    body = "".join(f"    _set{i}(obj, v{i})\n" for i in range(len(names)))
    exec(f"def make({params}):\n    obj = _new(_cls)\n{body}    return obj\n", scope)  # names are fields
    make: Callable[..., T] = scope["make"]
    make.__doc__ = f"{cls.__name__}({params}), made by setting its slots (gmonlens.records)"
    return make
