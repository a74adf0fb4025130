"""The baseline setting (gmonlens.yaml and client) and the pinned copy (`pinstore`): kept in a data
folder apart from the cache, swapped atomically, serialized across processes, validated on load,
exactly the profile shown (issue 33)."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gmonlens.common.errors import GmonlensError
from gmonlens.load import diskcache
from gmonlens_ide import baseline, pinstore
from gmonlens_ide.settings import Baseline, Settings, effective_settings


def test_baseline_setting_shapes(tmp_path: Path) -> None:
    (tmp_path / "gmonlens.yaml").write_text("baseline:\n  profiles: old/gmon.out\n  binary: old/app\n")
    s, problems = effective_settings(str(tmp_path), None)
    assert s.baseline == Baseline(("old/gmon.out",), "old/app") and problems == []
    s, _ = effective_settings(str(tmp_path), {"baseline": ["a.gmon", "b.gmon"]})
    assert s.baseline == Baseline(("a.gmon", "b.gmon"), None)
    s, problems = effective_settings(str(tmp_path), {"baseline": {"profile": "x"}})
    assert s.baseline == Baseline(("old/gmon.out",), "old/app")  # the file's value stays
    assert problems and "`baseline`" in problems[0]
    s, problems = effective_settings(str(tmp_path), {"baseline": {}})
    assert s.baseline == Baseline(("old/gmon.out",), "old/app") and problems == []  # {} means unset


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """XDG_CACHE_HOME and XDG_DATA_HOME of their own; returns the workspace folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "app").write_bytes(b"\x7fELF" + b"a" * 5000)
    (folder / "gmon.out").write_bytes(b"gmon" + b"\1" * 300)
    return folder


def _pin(folder: Path, label: str = "pinned now", **kw: object) -> pinstore.PinnedBaseline:
    return pinstore.pin(str(folder), str(folder / "app"), (str(folder / "gmon.out"),), label, **kw)  # type: ignore[arg-type]


def test_pin_wins_over_the_setting_and_lives_apart_from_the_cache(homes: Path, tmp_path: Path) -> None:
    folder = homes
    (folder / "other.gmon").write_bytes(b"gmon2")
    s, _ = effective_settings(str(folder), {"baseline": "other.gmon"})
    found, problems = baseline.configured(str(folder), s, str(folder / "app"))
    assert found == (str(folder / "app"), (str(folder / "other.gmon"),), "other.gmon") and problems == []
    before = sorted(folder.iterdir())
    info = _pin(folder)
    assert info.binary.startswith(str(tmp_path / "data" / "gmonlens" / "baselines"))
    assert sorted(folder.iterdir()) == before  # nothing written into the folder
    (folder / "gmon.out").write_bytes(b"changed")  # the pinned copy does not follow the file
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)  # README: deleting the cache is always safe
    _binary, profiles, label = baseline.configured(str(folder), s, str(folder / "app"))[0] or ("", (), "")
    assert label == "pinned now" and Path(profiles[0]).read_bytes() == b"gmon" + b"\1" * 300
    assert pinstore.clear(str(folder)) and not pinstore.clear(str(folder))
    assert baseline.configured(str(folder), s, str(folder / "app"))[0] == found
    os.environ["GMONLENS_CACHE"] = "off"  # pins do not need the cache
    try:
        assert _pin(folder).binary.startswith(str(tmp_path / "data"))
    finally:
        del os.environ["GMONLENS_CACHE"]


def test_the_workspace_may_choose_where_pins_live(homes: Path, tmp_path: Path) -> None:
    folder = homes
    (folder / "gmonlens.yaml").write_text("pin_folder: .pins\n")
    s, problems = effective_settings(str(folder), None)
    assert s.pin_folder == ".pins" and problems == []
    info = _pin(folder, choice=s.pin_folder)
    assert info.binary.startswith(str(folder / ".pins"))
    assert baseline.configured(str(folder), s, str(folder / "app"))[0] is not None
    assert baseline.configured(str(folder), Settings(), str(folder / "app"))[0] is None
    (folder / "gmonlens.yaml").write_text(f"pin_folder: {tmp_path / 'elsewhere'}\n")
    s, problems = effective_settings(str(folder), None)  # outside: only in a trusted workspace
    assert s.pin_folder is None and "outside" in problems[0]
    s, problems = effective_settings(str(folder), {"trustedWorkspace": True})
    assert s.pin_folder == str(tmp_path / "elsewhere") and problems == []


def _blocks(path: Path) -> int:
    return path.stat().st_blocks * 512


def test_pin_keeps_a_sparse_binary_sparse(homes: Path) -> None:
    """Issue 22: pinning copied a 1 GB sparse binary into the cache as 1 GB of real data."""
    app = homes / "app"
    app.write_bytes(b"\x7fELF" + b"x" * 8192)
    with app.open("r+b") as fh:
        fh.truncate(1 << 30)
        fh.seek((1 << 30) - 5)
        fh.write(b"tail!")
    if _blocks(app) > 1 << 20:
        pytest.skip("this filesystem does not keep holes")
    info = _pin(homes)
    copy = Path(info.binary)
    assert copy.stat().st_size == 1 << 30 and _blocks(copy) < 1 << 20
    with copy.open("rb") as fh:
        assert fh.read(4) == b"\x7fELF"
        fh.seek((1 << 30) - 5)
        assert fh.read() == b"tail!"
    pinstore._VALID.clear()
    assert pinstore.pinned(str(homes))[0] is not None  # validated (holes not read)


def test_pin_larger_than_the_free_space_is_refused(homes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.statvfs

    class Full:
        f_bavail, f_frsize = 1, 4096

    monkeypatch.setattr(os, "statvfs", lambda p: Full() if "data" in str(p) else real(p))
    with pytest.raises(GmonlensError, match="only 0 MB are free"):
        _pin(homes)
    assert pinstore.pinned(str(homes)) == (None, None)


def test_pin_refuses_a_profile_other_than_the_one_shown(homes: Path) -> None:
    """Issue 33 (4): a pin within a moment of a rerun pinned the new run while the old one was on
    screen; a pin during a write pinned a truncated copy and said it succeeded."""
    app, gmon = homes / "app", homes / "gmon.out"
    st = os.stat(app)
    shown = pinstore.Expected(
        (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns), (diskcache.content_key(gmon.read_bytes()),)
    )
    _pin(homes, "first", expected=shown)
    gmon.write_bytes(b"gmon" + b"\2" * 100)  # a new run, not yet shown
    with pytest.raises(GmonlensError, match=r"gmon.out: changed since the profile shown was loaded"):
        _pin(homes, "second", expected=shown)
    app.write_bytes(b"\x7fELF" + b"b" * 5000)  # rebuilt
    with pytest.raises(GmonlensError, match=r"app: changed since the profile shown was loaded"):
        _pin(homes, "third", expected=shown)
    pin, problem = pinstore.pinned(str(homes))
    assert pin is not None and pin.label == "first" and problem is None  # the earlier pin stays
    assert [p.name for p in Path(pin.path).parent.iterdir() if p.name.startswith(".stage")] == []


def test_a_damaged_pin_is_not_used_and_said(homes: Path) -> None:
    info = _pin(homes)
    Path(info.profiles[0]).write_bytes(b"gmon" + b"\1" * 299 + b"\2")  # same size, other bytes
    pin, problem = pinstore.pinned(str(homes))
    assert (
        pin is None and problem is not None and "damaged (profile.0 differs from what was pinned)" in problem
    )
    found, problems = baseline.configured(str(homes), Settings(), str(homes / "app"))
    assert found is None and problems == [problem]
    os.unlink(info.binary)
    pin, problem = pinstore.pinned(str(homes))
    assert pin is None and problem is not None and "incomplete" in problem


def test_a_pin_of_the_old_layout_is_read_then_replaced(homes: Path, tmp_path: Path) -> None:
    old = Path(pinstore.legacy_dir(str(homes)) or "")
    old.mkdir(parents=True)
    shutil.copy(homes / "app", old / "binary")
    shutil.copy(homes / "gmon.out", old / "profile.0")
    (old / "baseline.json").write_text(
        json.dumps({"binary": "binary", "profiles": ["profile.0"], "label": "old"})
    )
    pin, _ = pinstore.pinned(str(homes))
    assert pin is not None and pin.label == "old"
    _pin(homes, "new")
    assert not old.exists() and (pinstore.pinned(str(homes))[0] or pin).label == "new"


# ---- faults: two processes, kills ------------------------------------------------------------------

ROUNDS = 100


def _racer(folder: str, which: str, barrier: object, rounds: int, errors: object) -> None:
    for _ in range(rounds):
        barrier.wait()  # type: ignore[attr-defined]
        try:
            pinstore.pin(folder, f"{folder}/{which}.app", (f"{folder}/{which}.gmon",), which)
        except Exception as exc:  # reported to the test
            errors.put(f"{which}: {exc}")  # type: ignore[attr-defined]
        barrier.wait()  # type: ignore[attr-defined]
        barrier.wait()  # type: ignore[attr-defined]  # the test has looked


@pytest.fixture
def memory_dir(tmp_path: Path) -> object:
    """A folder in memory when the machine has one (/dev/shm: a pin syncs its files, which the race
    below does not test and which costs ~10 ms a sync on a busy disk), else in tmp_path."""
    import tempfile

    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else str(tmp_path)
    d = tempfile.mkdtemp(prefix="gmonlens-pins-", dir=base)
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


def test_concurrent_pins_from_two_processes_never_lose_a_baseline(
    homes: Path, memory_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33 (1): every pin staged in the same `<hash>.new` folder: two windows pinning together
    deleted the old baseline and left an incomplete new one (7 of 48 tries). Two processes pin at
    the same moment, 100 times: each time the pin in place is one of theirs, whole."""
    monkeypatch.setenv("XDG_DATA_HOME", str(memory_dir))
    for which in ("a", "b"):
        (homes / f"{which}.app").write_bytes(b"\x7fELF" + which.encode() * 200_000)
        (homes / f"{which}.gmon").write_bytes(b"gmon" + which.encode() * 3000)
    ctx = multiprocessing.get_context("fork")
    barrier, errors = ctx.Barrier(3), ctx.Queue()
    procs = [ctx.Process(target=_racer, args=(str(homes), w, barrier, ROUNDS, errors)) for w in ("a", "b")]
    for p in procs:
        p.start()
    try:
        for _ in range(ROUNDS):
            barrier.wait(timeout=60)
            barrier.wait(timeout=60)
            pin, problem = pinstore.pinned(str(homes))
            assert problem is None and pin is not None, problem
            which = pin.label
            assert Path(pin.binary).read_bytes() == (homes / f"{which}.app").read_bytes()
            assert Path(pin.profiles[0]).read_bytes() == (homes / f"{which}.gmon").read_bytes()
            pins = [d.name for d in Path(pin.path).parent.iterdir() if d.is_dir()]
            assert pins == [Path(pin.path).name], pins  # nothing left behind
            barrier.wait(timeout=60)
    finally:
        for p in procs:
            p.join(timeout=60)
    assert errors.empty(), errors.get()


KILLER = """
import os, signal, sys
from gmonlens_ide import pinstore
at, seen = int(sys.argv[1]), []
def hook(step):
    seen.append(step)
    if len(seen) == at:
        os.kill(os.getpid(), signal.SIGKILL)
pinstore.FAULT_HOOK = hook
folder = sys.argv[2]
pinstore.pin(folder, folder + "/b.app", (folder + "/b.gmon",), "b")
print(len(seen))
"""


def test_a_kill_at_every_step_of_a_pin_leaves_the_old_or_the_new_baseline_whole(homes: Path) -> None:
    """Issue 33 (2): re-pinning removed the old pin, then renamed the new one in: a kill between the
    two left no baseline. Killed (SIGKILL) at each step of a pin in turn, the folder keeps the old
    pin or the new one, whole; the next pin removes what the killed one left."""
    for which in ("a", "b"):
        (homes / f"{which}.app").write_bytes(b"\x7fELF" + which.encode() * 70_000)
        (homes / f"{which}.gmon").write_bytes(b"gmon" + which.encode() * 700)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    outcomes: list[str] = []
    for at in range(1, 100):
        pinstore.pin(str(homes), str(homes / "a.app"), (str(homes / "a.gmon"),), "a")
        run = subprocess.run(
            [sys.executable, "-c", KILLER, str(at), str(homes)], env=env, capture_output=True, text=True
        )
        pinstore._VALID.clear()
        pin, problem = pinstore.pinned(str(homes))
        assert problem is None and pin is not None, (at, problem)
        assert Path(pin.binary).read_bytes() == (homes / f"{pin.label}.app").read_bytes(), at
        assert Path(pin.profiles[0]).read_bytes() == (homes / f"{pin.label}.gmon").read_bytes(), at
        outcomes.append(pin.label)
        if run.returncode == 0:  # no step left to kill at
            assert int(run.stdout) == at - 1 and pin.label == "b"
            break
        assert run.returncode == -signal.SIGKILL, run.stderr
    else:
        raise AssertionError("the pin never finished")
    assert "a" in outcomes and outcomes[-2:] == ["b", "b"], outcomes  # old before the swap, new after
    pinstore.pin(str(homes), str(homes / "a.app"), (str(homes / "a.gmon"),), "a")
    d = Path(pinstore.pin_dir(str(homes)) or "")
    assert sorted(p.name for p in d.iterdir() if not p.name.startswith("pin-")) == ["current", "lock"]
    assert len([p for p in d.iterdir() if p.name.startswith("pin-")]) == 1
