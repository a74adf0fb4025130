"""The JUnit XML schema Jenkins reads (`junit-10.xsd`, from the Jenkins xUnit plugin, MIT licence),
for validating `gmonlens check --junit` in tests.

No wheel on PyPI ships it, but pytest's sdist carries a copy for pytest's own JUnit tests
(`testing/example_scripts/junit-10.xsd`): it is fetched with pip (the sdist of the pytest this
venv runs) on first use, and kept in `bench/work/junit-schema/` (`$GMONLENS_JUNIT_XSD` may name
the file instead). Without a network the tests that need it skip with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / "work" / "junit-schema"
MEMBER = "testing/example_scripts/junit-10.xsd"


def jenkins_junit_xsd() -> Path:
    """The schema's path (module doc); skips the test when it cannot be had."""
    named = os.environ.get("GMONLENS_JUNIT_XSD")
    if named:
        return Path(named)
    target = CACHE / "junit-10.xsd"
    if target.is_file():
        return target
    version = pytest.__version__
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", "pytest", f"pytest=={version}",
             "-d", tmp],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        sdists = list(Path(tmp).glob("pytest-*.tar.gz"))
        if r.returncode != 0 or not sdists:
            pytest.skip(
                f"cannot fetch pytest {version}'s sdist for the JUnit schema: {r.stderr.strip()[-200:]}"
            )
        with tarfile.open(sdists[0]) as tar:
            member = next((m for m in tar.getmembers() if m.name.endswith("/" + MEMBER)), None)
            if member is None:
                pytest.skip(f"pytest {version}'s sdist has no {MEMBER}")
            data = tar.extractfile(member)
            assert data is not None
            text = data.read()
    assert b'<xs:element name="testsuites">' in text and b"Gregory Boissinot" in text  # Jenkins' schema
    CACHE.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text)
    return target
