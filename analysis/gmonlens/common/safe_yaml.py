"""A YAML file of the user's (a budget file, a `gmonlens test` list of commands), read as untrusted
input (I/O: one regular file, bounded).

Contract of `read_yaml(path, what)` (`what` names the kind of file in messages):
- the file is a regular file of at most MAX_BYTES bytes, UTF-8 (a BOM allowed), read through
  `common.files.read_regular` (no FIFO, device or directory; a size that lies cannot make us read
  more than the cap);
- it holds one YAML document, read with PyYAML's safe loader (plain data only: no tags that build
  objects), and further refused: aliases (`*name`: a few bytes that expand into a graph whose
  walk is exponential, or a cycle), keys repeated in one mapping (YAML keeps the last silently),
  nesting deeper than MAX_DEPTH, more than MAX_NODES nodes, scalars longer than MAX_SCALAR;
- the result is `Document`: the data and the 1-based line where each mapping and list of it
  starts (`line_of`), for messages that name the rule.
Every refusal raises `YamlFileError` with one line naming the file (and the line when known).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, SequenceNode

from gmonlens.common.errors import GmonlensError
from gmonlens.common.files import read_regular

MAX_BYTES = 1 << 20  # a budget file of thousands of rules, a list of thousands of tests: under 1 MiB
MAX_DEPTH = 32
MAX_NODES = 200_000
MAX_SCALAR = 4096


class YamlFileError(GmonlensError):
    """A YAML file that cannot be used: `lines` holds one line per problem, each naming the file
    (and the entry, where one is at fault). `str()` is the lines joined by newlines."""

    def __init__(self, path: str, lines: list[str]) -> None:
        super().__init__(None, lines[0] if lines else f"{path}: bad YAML file")
        self.path = path
        self.lines = list(lines) or [f"{path}: bad YAML file"]

    def __str__(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class Document:
    """The file's data and where its mappings and lists start (1-based lines, by `id`)."""

    data: Any
    lines: dict[object, int] = field(default_factory=dict)

    def line_of(self, value: object) -> int:
        """The line where mapping or list `value` (an object of `data`) starts; 0 when unknown."""
        return self.lines.get(id(value), 0)

    def item_line(self, container: object, key: object) -> int:
        """The line of entry `key` (a mapping's key, or a list's index) of `container`; else the
        container's line."""
        try:
            return self.lines.get((id(container), key), 0) or self.line_of(container)
        except TypeError:  # an unhashable key
            return self.line_of(container)


class _Refused(yaml.YAMLError):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing aliases, repeated keys, deep nesting and huge scalars, and
    recording where each mapping and list starts (`starts`, by the constructors below)."""

    def __init__(self, text: str, what: str) -> None:
        super().__init__(text)
        self.what = what
        self.depth = 0
        self.nodes = 0
        self.starts: dict[object, int] = {}

    def _here(self) -> int:
        """The 1-based line of the next event."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        return int(event.start_mark.line) + 1

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(AliasEvent):
            raise _Refused(f"aliases (*name) are not accepted in a {self.what}", self._here())
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Refused(f"more than {MAX_NODES} values", self._here())
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH} levels", self._here())
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        if node is not None and isinstance(node.value, str) and len(node.value) > MAX_SCALAR:
            raise _Refused(f"a value longer than {MAX_SCALAR} characters", node.start_mark.line + 1)
        return node

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                repeated = key in seen
            except TypeError:  # an unhashable key (a list): the base class says so
                break
            if repeated:
                raise _Refused(f"key '{key}' repeated in one mapping", key_node.start_mark.line + 1)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# mappings and lists as the safe loader builds them (empty first, then filled: a value may refer
# to its container), each recorded with its line
def _construct_map(loader: _Loader, node: MappingNode) -> Any:
    data: dict[Hashable, Any] = {}
    yield data
    data.update(loader.construct_mapping(node))
    loader.starts[id(data)] = node.start_mark.line + 1
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if isinstance(key, (str, int)):
            loader.starts[(id(data), key)] = key_node.start_mark.line + 1


def _construct_seq(loader: _Loader, node: SequenceNode) -> Any:
    data: list[Any] = []
    yield data
    data.extend(loader.construct_sequence(node))
    loader.starts[id(data)] = node.start_mark.line + 1
    for i, item in enumerate(node.value):
        loader.starts[(id(data), i)] = item.start_mark.line + 1


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def parse_yaml(text: str, path: str, what: str = "budget file") -> Document:
    """`text` (the content of a `what`) as a Document; YamlFileError when refused."""
    loader = _Loader(text, what)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _Refused as e:
        raise YamlFileError(path, [f"{path}:{e.line}: {e.message}"]) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{path}:{mark.line + 1}" if mark is not None else path
        what = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise YamlFileError(path, [f"{where}: not valid YAML: {what or 'syntax error'}"]) from None
    except yaml.YAMLError as e:
        raise YamlFileError(path, [f"{path}: not valid YAML: {' '.join(str(e).split())}"]) from None
    except RecursionError:
        raise YamlFileError(path, [f"{path}: nested too deeply"]) from None
    finally:
        loader.dispose()
    return Document(data, dict(loader.starts))


def read_yaml(path: str, what: str = "budget file") -> Document:
    """The `what` (a budget file, a list of tests) at `path` (module contract)."""
    try:
        raw = read_regular(path, MAX_BYTES, f"{what} (YAML)")
    except GmonlensError as e:
        raise YamlFileError(path, [str(e)]) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise YamlFileError(path, [f"{path}:{line}: not UTF-8 text"]) from None
    if "\0" in text:
        raise YamlFileError(path, [f"{path}:{text[: text.index(chr(0))].count(chr(10)) + 1}: a NUL byte"])
    return parse_yaml(text, path, what)
