"""The VS Code extension recognises the engine's "capstone is missing" messages by their text
(src/launch.ts saysCapstoneMissing, loggedWarningPopup) and its unit tests hold that logic on copies
of them (test/unit/launch.test.ts): the copies must be the engine's words, else the extension's
advice (and -c's popup) would silently stop."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from gmonlens.common.errors import GmonlensError
from gmonlens.disasm.listing import Decoder
from gmonlens.profile import static_calls as staticcalls

UNIT_TEST = Path(__file__).resolve().parents[2] / "vscode-extension" / "test" / "unit" / "launch.test.ts"


def _constant(name: str) -> str:
    found = re.search(rf'const {name} = "([^"]*)";', UNIT_TEST.read_text())
    assert found, f"{name} not in {UNIT_TEST}"
    return found.group(1)


def test_static_calls_warning_is_the_one_the_extension_pops_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(staticcalls, "_capstone", None)
    with pytest.raises(GmonlensError) as got:
        staticcalls.find_static_calls("EM_X86_64", [], [], [])
    assert str(got.value) == _constant("noStaticCalls")


def test_listing_error_is_the_one_the_extension_advises_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "capstone", None)  # import capstone raises ImportError
    with pytest.raises(GmonlensError) as got:
        Decoder("EM_X86_64")
    assert str(got.value) == _constant("missing")
