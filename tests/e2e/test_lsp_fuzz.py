"""Fuzzing a live server on a fixture workspace, bounded in time (GMONLENS_FUZZ_SECONDS, default 20 s
per test; GMONLENS_FUZZ_SEED to replay): the server never dies, answers every request (a result
or an error) within a time-out, and prints no traceback. Each test prints its counts.

1. LSP messages: the methods we serve with mutated params, random JSON values as params, unknown
   methods, notifications with bad params, bodies that are not JSON, odd framing.
2. Workspace files: mutated gmon.out, binary and gmonlens.yaml through discovery and loading: each
   reload ends in "loaded" or "problem", never in silence.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from .rawlsp import RawServer, uri

pytestmark = pytest.mark.e2e
SECONDS = float(os.environ.get("GMONLENS_FUZZ_SECONDS", "20"))
ANSWER_TIMEOUT = 20.0
WEIRD = [0, -1, 1, 2**31, 2**40, 2**63, -(2**63), 1.5, float("1e308"), "", "x", "\x00", "\udcff", "é" * 5000,
         True, False, None, [], {}, [None], {"": None}, "file:///", "file:///\x00", "untitled:x", "file:///dev/zero",
         "file:///proc/self/mem", "file://host/share", "%ff", "../../../../etc/passwd"]  # fmt: skip
UNKNOWN = ["gmonlens/nope", "textDocument/definition", "$/nothing", "", "textDocument/", "x" * 300]


def templates(ws: Path) -> list[tuple[str, Any, bool]]:
    """(method, params, is_request) for every method the server handles, with plausible params."""
    main = uri(ws / "src" / "main.c")
    util = uri(ws / "src" / "util.c")
    doc = {"uri": main}
    pos = {"line": 12, "character": 6}
    item = {"name": "work", "kind": 12, "uri": main, "range": {"start": pos, "end": pos},
            "selectionRange": {"start": pos, "end": pos}, "data": {"routine": 3, "generation": 1, "name": "work"}}  # fmt: skip
    return [
        ("textDocument/hover", {"textDocument": doc, "position": pos}, True),
        ("textDocument/codeLens", {"textDocument": {"uri": util}}, True),
        ("textDocument/prepareCallHierarchy", {"textDocument": doc, "position": pos}, True),
        ("callHierarchy/incomingCalls", {"item": item}, True),
        ("callHierarchy/outgoingCalls", {"item": item}, True),
        ("workspace/symbol", {"query": "w"}, True),
        ("workspace/executeCommand", {"command": "gmonlens.hottest", "arguments": ["self", 5]}, True),
        ("workspace/executeCommand", {"command": "gmonlens.showCallers", "arguments": [main, pos]}, True),
        ("workspace/executeCommand", {"command": "gmonlens.report", "arguments": []}, True),
        ("workspace/executeCommand", {"command": "gmonlens.reload", "arguments": [uri(ws)]}, True),
        ("workspace/executeCommand", {"command": "gmonlens.nope", "arguments": [1]}, True),
        (
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": main,
                    "languageId": "c",
                    "version": 1,
                    "text": (ws / "src" / "main.c").read_text(),
                }
            },
            False,
        ),
        (
            "textDocument/didChange",
            {
                "textDocument": {"uri": main, "version": 2},
                "contentChanges": [{"range": {"start": pos, "end": pos}, "text": "\f\u2028x"}],
            },
            False,
        ),
        ("textDocument/didClose", {"textDocument": doc}, False),
        ("workspace/didChangeConfiguration", {"settings": {"gmonlens": {"lensTitle": "{name}"}}}, False),
        (
            "workspace/didChangeWatchedFiles",
            {"changes": [{"uri": uri(ws / "build" / "gmon.out"), "type": 2}]},
            False,
        ),
        ("$/cancelRequest", {"id": 1}, False),
        ("$/setTrace", {"value": "off"}, False),
    ]


def mutate(value: Any, rng: random.Random, depth: int = 0) -> Any:
    """`value` with one random change somewhere (a leaf replaced, a key dropped or added, a type
    swapped), or a random value at the top."""
    roll = rng.random()
    if depth > 6 or roll < 0.15:
        return random_value(rng)
    if isinstance(value, dict) and value:
        out = dict(value)
        key = rng.choice(list(out))
        r = rng.random()
        if r < 0.2:
            del out[key]
        elif r < 0.3:
            out[rng.choice(["extra", "uri", "line", "", "\x00"])] = random_value(rng)
        else:
            out[key] = mutate(out[key], rng, depth + 1)
        return out
    if isinstance(value, list) and value:
        out_list = list(value)
        i = rng.randrange(len(out_list))
        out_list[i] = mutate(out_list[i], rng, depth + 1)
        if rng.random() < 0.2:
            out_list.append(random_value(rng))
        return out_list
    return random_value(rng)


def random_value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 3 or r < 0.5:
        return rng.choice(WEIRD)
    if r < 0.6:
        return rng.randint(-(2**70), 2**70)
    if r < 0.75:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if r < 0.9:
        keys = ["uri", "line", "character", "textDocument", "position", "query", "command", "arguments", "x"]
        return {rng.choice(keys): random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(0, 20))).encode(
        "utf-8", "surrogatepass").decode("utf-8", "replace")  # fmt: skip


def seed() -> int:
    return int(os.environ.get("GMONLENS_FUZZ_SEED", str(random.SystemRandom().randrange(2**32))))


def tracebacks(stderr: bytes) -> list[str]:
    """Each distinct traceback in `stderr`, as its last frame and exception line."""
    out: dict[str, None] = {}
    lines = stderr.decode("utf-8", "replace").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            j = i + 1
            while j < len(lines) and (lines[j].startswith(" ") or lines[j].startswith("Traceback")):
                j += 1
            frames = [x.strip() for x in lines[i:j] if x.strip().startswith("File ")]
            where = " | ".join(frames[:3] + frames[-1:])
            out[where + " -> " + (lines[j] if j < len(lines) else "")] = None
    return list(out)


def report(name: str, server: RawServer, counts: dict[str, int], s: int) -> None:
    counts["tracebacks"] = server.stderr.count(b"Traceback")
    counts["crashes"] = int(server.proc.poll() is not None)
    print(f"\n{name} (seed {s}): " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for t in tracebacks(server.stderr):
        print("  traceback:", t)


def test_fuzz_lsp_messages(cproject: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    s = seed()
    rng = random.Random(s)
    counts = {"inputs": 0, "requests": 0, "notifications": 0, "raw": 0, "errors answered": 0, "hangs": 0}
    with RawServer(tmp_path / "cache") as server:
        server.initialize(ws)
        assert (server.wait_state(timeout=60) or {}).get("state") == "loaded"
        base = templates(ws)
        deadline = time.monotonic() + SECONDS
        hung: list[Any] = []
        while time.monotonic() < deadline and server.proc.poll() is None:
            counts["inputs"] += 1
            kind = rng.random()
            if kind < 0.08:  # bodies that are not JSON, and odd framing
                counts["raw"] += 1
                junk = rng.choice([b"{", b"[1,2", b"\xff\xfe", b"null", b"[]", b"5", b'"x"', b"[" * 100000,
                                   b'{"jsonrpc": "2.0", "id": 1}', b'{"jsonrpc": "1.0", "id": 9, "method": "x"}'])  # fmt: skip
                if rng.random() < 0.2:
                    server.send_bytes(b"X-Junk: 1\r\ncontent-length: %d\r\n\r\n" % len(junk) + junk)
                else:
                    server.send_body(junk)
                continue
            method, params, is_request = rng.choice(base)
            if kind < 0.2:
                method = rng.choice(UNKNOWN)
            if kind < 0.35:
                params = random_value(rng)
            elif kind < 0.9:
                params = mutate(params, rng)
            if rng.random() < 0.1:
                is_request = not is_request
            if not is_request:
                counts["notifications"] += 1
                server.send({"jsonrpc": "2.0", "method": method, "params": params})
                continue
            counts["requests"] += 1
            msg_id = server.new_id()
            server.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            resp = server.wait_response(msg_id, ANSWER_TIMEOUT)
            if resp is None:
                counts["hangs"] += 1
                hung.append((method, json.dumps(params)[:300]))
            elif "error" in resp:
                counts["errors answered"] += 1
        # after all that, it still serves a plain request
        final = server.request("workspace/symbol", {"query": ""}, timeout=ANSWER_TIMEOUT)
        report("LSP fuzz", server, counts, s)
        assert server.proc.poll() is None, "the server died"
        assert final is not None and "result" in final, final
        assert hung == [], hung
        assert counts["tracebacks"] == 0, tracebacks(server.stderr)
        assert server.shutdown_and_exit() == 0


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Flip, insert, delete or overwrite a few bytes; sometimes truncate or repeat a slice."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        i = rng.randrange(len(b)) if b else 0
        if r < 0.4 and b:
            b[i] ^= 1 << rng.randrange(8)
        elif r < 0.55 and b:
            b[i] = rng.choice([0, 0xFF, 0x7F, 0x80])
        elif r < 0.65 and b:
            b[i : i + 4] = rng.randbytes(4)
        elif r < 0.75:
            b[i:i] = rng.randbytes(rng.randint(1, 16))
        elif r < 0.85 and b:
            del b[i : i + rng.randint(1, 64)]
        elif r < 0.92:
            b = b[: rng.randrange(len(b) + 1)]
        else:
            j = rng.randrange(len(b) + 1)
            b[j:j] = b[i : i + 64] * rng.randint(1, 50)
    return bytes(b)


YAML_SAMPLES = [
    "binary: build/app\nprofiles: [build/gmon.out]\n",
    "lens_title: '{percent:>5} {name}'\nstatic_call_graph: true\n",
    "source_map: {/nowhere: src}\nprofiles: build/gmon.out*\n",
]


def test_fuzz_workspace_files(cproject: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    s = seed()
    rng = random.Random(s)
    profile = (ws / "build" / "gmon.out").read_bytes()
    binary = (ws / "build" / "app").read_bytes()
    counts = {"inputs": 0, "loaded": 0, "problem": 0, "hangs": 0}
    with RawServer(tmp_path / "cache") as server:
        server.initialize(ws)
        assert (server.wait_state(timeout=60) or {}).get("state") == "loaded"
        deadline = time.monotonic() + SECONDS
        hung: list[str] = []
        while time.monotonic() < deadline and server.proc.poll() is None:
            counts["inputs"] += 1
            target = rng.choice(["profile", "profile", "binary", "yaml"])
            (ws / "build" / "gmon.out").write_bytes(
                mutate_bytes(profile, rng) if target == "profile" else profile
            )
            (ws / "build" / "app").write_bytes(mutate_bytes(binary, rng) if target == "binary" else binary)
            yaml_path = ws / "gmonlens.yaml"
            if target == "yaml":
                yaml_path.write_bytes(mutate_bytes(rng.choice(YAML_SAMPLES).encode(), rng))
            elif yaml_path.exists():
                yaml_path.unlink()
            before = len(server.statuses())
            resp = server.request(
                "workspace/executeCommand", {"command": "gmonlens.reload"}, timeout=ANSWER_TIMEOUT
            )
            status = server.wait_state(("loaded", "problem", "idle"), after=before, timeout=ANSWER_TIMEOUT)
            if resp is None or status is None:
                counts["hangs"] += 1
                hung.append(target)
                continue
            counts["loaded" if status["state"] == "loaded" else "problem"] += 1
            if status["state"] == "loaded":  # what loaded must also serve
                lens = server.request("textDocument/codeLens", {"textDocument": {"uri": uri(ws / "src" / "main.c")}},
                                      timeout=ANSWER_TIMEOUT)  # fmt: skip
                if lens is None:
                    counts["hangs"] += 1
                    hung.append(f"{target}: codeLens")
        report("workspace-file fuzz", server, counts, s)
        assert server.proc.poll() is None, "the server died"
        assert hung == [], hung
        assert counts["tracebacks"] == 0, tracebacks(server.stderr)
        assert server.shutdown_and_exit() == 0
