"""Issue 22: paths a workspace's own gmonlens.yaml names that lead outside the folder (`/etc/*`,
`/proc/*/environ`, a link planted inside the folder) are read only when the client says the
workspace is trusted (`trustedWorkspace`); each dropped path is said once as a problem. The client's
own settings (the user's) are not fenced."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gmonlens.common.errors import GmonlensError
from gmonlens_ide import userfiles
from gmonlens_ide.discovery import expand_profiles
from gmonlens_ide.settings import UNTRUSTED, effective_settings

TRUSTED = {"gmonlens": {"trustedWorkspace": True}}


def _yaml(ws: Path, text: str) -> None:
    (ws / "gmonlens.yaml").write_text(text)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('profiles: ["/etc/*"]\n', "profiles"),
        ('profiles: ["/proc/*/environ"]\n', "profiles"),
        ('profiles: ["../../*"]\n', "profiles"),
        ("binary: /etc/passwd\n", "binary"),
        ("source_map: {/build: /etc}\n", "source_map"),
        ('baseline: {profiles: ["/etc/*"], binary: /bin/ls}\n', "baseline"),
    ],
)
def test_yaml_paths_outside_need_trust(tmp_path: Path, text: str, field: str) -> None:
    _yaml(tmp_path, text)
    s, problems = effective_settings(str(tmp_path), None)
    assert getattr(s, field) in ((), None), getattr(s, field)
    assert problems and all(UNTRUSTED in p and "\n" not in p for p in problems), problems
    t, problems = effective_settings(str(tmp_path), TRUSTED)
    assert getattr(t, field) not in ((), None) and not problems


def test_the_clients_own_paths_are_not_fenced(tmp_path: Path) -> None:
    s, problems = effective_settings(str(tmp_path), {"gmonlens": {"profiles": ["/data/run/gmon.out"]}})
    assert s.profiles == ("/data/run/gmon.out",) and not problems


def test_a_settings_file_linking_outside_is_ignored(tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("binary: app\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "gmonlens.yaml").symlink_to(secret)
    s, problems = effective_settings(str(ws), None)
    assert s.binary is None and UNTRUSTED in problems[0]
    assert effective_settings(str(ws), TRUSTED)[0].binary == "app"


def test_yaml_errors_do_not_quote_the_file(tmp_path: Path) -> None:
    _yaml(tmp_path, "a: [b\nroot:x:0:0:hunter2 '!tag' \"quoted secret\"\n")
    _, problems = effective_settings(str(tmp_path), None)
    assert problems and "hunter2" not in problems[0] and "secret" not in problems[0], problems


def test_profile_links_leading_outside_are_left_out(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "gmon.out").write_bytes(b"secret")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "gmon.out.1").write_bytes(b"")
    (ws / "gmon.out.2").symlink_to(outside / "gmon.out")
    (ws / "gmon.out.3").symlink_to(ws / "gmon.out.1")  # inside: de-duplicated
    files, problems = expand_profiles(str(ws), ["gmon.out.*", "gmon.out.2"], trusted=False)
    assert files == [str(ws / "gmon.out.1")]
    assert len(problems) == 2 and all(UNTRUSTED in p for p in problems)
    files, problems = expand_profiles(str(ws), ["gmon.out.*"], trusted=True)
    assert files == [str(ws / "gmon.out.1"), str(ws / "gmon.out.2")] and not problems


def test_a_source_linked_outside_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0\n")
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "main.c").symlink_to(secret)
    (ws / "src" / "ok.c").write_text("int main;\n")
    userfiles.set_trust(str(ws), False)
    try:
        with pytest.raises(GmonlensError, match="outside the workspace"):
            userfiles.read_text(str(ws / "src" / "main.c"), 1 << 20, "source file")
        assert userfiles.read_text(str(ws / "src" / "ok.c"), 1 << 20, "source file") == "int main;\n"
        userfiles.set_trust(str(ws), True)
        assert userfiles.read_text(str(ws / "src" / "main.c"), 1 << 20, "source file") == "root:x:0:0\n"
    finally:
        userfiles.set_trust(str(ws), True)
    assert os.path.exists(secret)
