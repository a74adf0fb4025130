"""PROTOCOL.md against the committed examples (protocol/examples, written by test_examples.py):
- the custom methods (`gmonlens/...`) and the commands (`gmonlens.*` under workspace/executeCommand)
  it documents are exactly those with examples, and so are the settings of its table;
- each message's part of the document names every key its examples carry (in code: backticks or a
  code block), and every camelCase key it names in code is one they carry (a single-word key such
  as `line` cannot be told from a value in prose, so only camelCase ones are held to this)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "protocol" / "examples"
PROTOCOL = ROOT / "server" / "gmonlens_lsp" / "PROTOCOL.md"
PARTS = ("params", "result", "arguments", "data", "initializationOptions")


def load_examples() -> dict[str, dict[str, Any]]:
    """message name -> {part[.variant] -> value}: `gmonlens.lineHeat` -> {"params": ..., "result": ...}."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(EXAMPLES.glob("*.json")):
        words = path.name.removesuffix(".json").split(".")
        at = next(i for i, w in enumerate(words) if w in PARTS)
        out.setdefault(".".join(words[:at]), {})[".".join(words[at:])] = json.loads(path.read_text("utf-8"))
    return out


def keys_of(value: Any) -> set[str]:
    """Every object key anywhere in a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def section(doc: str, start: re.Pattern[str]) -> str:
    """The part of the document from the line `start` matches: a bullet up to the next bullet at
    its indentation or less, a paragraph up to the next heading."""
    lines = doc.splitlines()
    first = next((i for i, line in enumerate(lines) if start.search(line)), None)
    assert first is not None, f"PROTOCOL.md has no part starting with a line like {start.pattern!r}"
    bullet = re.match(r"(\s*)- ", lines[first])
    out = [lines[first]]
    for line in lines[first + 1 :]:
        if line.startswith("#"):
            break
        if bullet is not None:
            other = re.match(r"(\s*)- ", line)
            if other is not None and len(other.group(1)) <= len(bullet.group(1)):
                break
        out.append(line)
    return "\n".join(out)


def code_of(text: str) -> str:
    """The code in a piece of Markdown: fenced blocks and `inline spans` (which may wrap lines)."""
    return "\n".join(fenced_and_spans(text))


def fenced_and_spans(text: str) -> list[str]:
    fenced = re.findall(r"```\w*\n(.*?)```", text, re.DOTALL)
    rest = re.sub(r"```\w*\n.*?```", "", text, flags=re.DOTALL)
    return fenced + re.findall(r"`([^`]+)`", rest)


CAMEL = r"[a-z]+[A-Z]\w*"


def named_keys(text: str) -> set[str]:
    """The camelCase keys a piece of Markdown names in code: quoted (`"totalSeconds"`), in a
    list without quotes (`[{name, selfSeconds, callSites: [...]}]`: a word before `,` `:` `}` `]`),
    or alone in a span (`maxNodes`); not placeholders of values (`"folder": folderUri`,
    `[folderUri?]`) nor method names (`gmonlens/callGraph`)."""
    out: set[str] = set()
    for code in fenced_and_spans(text):
        code = re.sub(r"[\w.]+/[\w/]+", "", code)  # gmonlens/callGraph, textDocument/hover
        out |= set(re.findall(rf'"({CAMEL})"', code))
        if '"' not in code:
            out |= set(re.findall(rf"(?<![\w.])({CAMEL})\s*[,:}}\]]", code))
        if re.fullmatch(CAMEL, code.strip()):
            out.add(code.strip())
    return out


def message_section(doc: str, name: str) -> str:
    """A message's part of PROTOCOL.md, with the parts of the methods it refers to (a command
    whose result is `gmonlens/disassembly`'s)."""
    if name == "callHierarchyItem":  # the items' `data` (the rest of the bullet is LSP's own)
        found = re.search(r"`data: \{[^`]*\}`", doc)
        return found.group(0) if found else ""
    if name.startswith("command."):
        own = section(doc, re.compile(rf"^\s+- `{re.escape(name.removeprefix('command.'))}`"))
    else:
        method = re.escape(name.replace(".", "/", 1))
        own = section(doc, re.compile(rf"^`{method}`|^- `{method}`.*\(custom request\)"))
    return "\n".join([own, *(message_section(doc, m) for m in referred(own, name))])


def referred(text: str, name: str) -> list[str]:
    """The other custom methods a message's part names (as example names)."""
    return [m.replace("/", ".") for m in re.findall(r"`(gmonlens/\w+)`", text) if m.replace("/", ".") != name]


def test_documented_messages_are_the_examples() -> None:
    doc = PROTOCOL.read_text("utf-8")
    examples = load_examples()
    methods = {n.replace(".", "/", 1) for n in examples if n.startswith("gmonlens.")}
    assert set(re.findall(r"`(gmonlens/\w+)`", doc)) == methods
    commands = {n.removeprefix("command.") for n in examples if n.startswith("command.")}
    execute = section(doc, re.compile(r"^- `workspace/executeCommand`"))
    assert set(re.findall(r"^\s*- `(gmonlens\.\w+)`", execute, re.MULTILINE)) == commands
    table = set(re.findall(r"^\| `(\w+)` \|", section(doc, re.compile(r"^## Settings")), re.MULTILINE))
    assert table == set(examples["initialize"]["initializationOptions"])


def test_each_message_s_keys_are_documented() -> None:
    doc = PROTOCOL.read_text("utf-8")
    problems = []
    examples = load_examples()
    for name, parts in examples.items():
        if name == "initialize":
            continue  # the settings table (above)
        text = message_section(doc, name)
        code = code_of(text)
        keys = set().union(*(keys_of(v) for v in parts.values()))
        also = set().union(set(), *(keys_of(v) for m in referred(text, name) for v in examples[m].values()))
        named = named_keys(text) - also
        problems += [
            f"{name}: key {k!r} is not in PROTOCOL.md"
            for k in sorted(keys)
            if not re.search(rf"\b{k}\b", code)
        ]
        problems += [f"{name}: PROTOCOL.md names {k!r}, no example has it" for k in sorted(named - keys)]
    assert not problems, "\n".join(problems)
