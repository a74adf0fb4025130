"""`gmonlens check` on a real program (check_programs/budgets.c) built with gcc -pg at test time.

Builds: base, EXTRA_HASH (one more hash() per item), EXTRA_ONE (one more hash() in the whole run),
NEW_CALLER (lookup() calls hash(): a new caller arc). Runs are short (the 10^7-call run takes
about 0.1 s; the sorts under 0.2 s each; the time-scaling runs, the costliest, about 3 s in all).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from gprof_harness import GMONLENS, gmonlens_env

from gmonlens.check.budget_file import load_budgets
from gmonlens.check.fitting import order_exponent
from gmonlens.check.orders import parse_order
from gmonlens.check.rules import ProfileSource, Side
from gmonlens.check.run import run_check

SOURCE = Path(__file__).parent / "check_programs" / "budgets.c"
VARIANTS = {
    "base": [],
    "extra_hash": ["-DEXTRA_HASH"],
    "extra_one": ["-DEXTRA_ONE"],
    "new_caller": ["-DNEW_CALLER"],
}
ITEMS, PER = 1_000_000, 10  # 10^7 calls of hash()


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


class Lab:
    """The built variants and helpers to run them and check budget files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.runs = 0

    def binary(self, variant: str = "base") -> Path:
        return self.root / variant

    def run(self, variant: str, *args: str | int) -> Path:
        """Run a variant in a folder of its own; the path of its gmon.out."""
        self.runs += 1
        work = self.root / f"run{self.runs}"
        work.mkdir()
        subprocess.run([str(self.binary(variant)), *map(str, args)], cwd=work, check=True, timeout=120,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        return work / "gmon.out"

    def budgets(self, text: str, name: str = "budgets.yaml") -> Path:
        path = self.root / name
        path.write_text(text)
        return path

    def check(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(GMONLENS), "check", *map(str, args)], cwd=self.root, capture_output=True,
                              text=True, env=gmonlens_env(), timeout=300)  # fmt: skip

    def check_json(self, budgets: Path, status: int) -> dict[str, Any]:
        out = self.check("--json", budgets)
        assert out.returncode == status, out.stdout + out.stderr
        data: dict[str, Any] = json.loads(out.stdout)
        assert data["schema"] == "gmonlens-check/1"
        return data


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    gcc = shutil.which("gcc")
    if gcc is None or shutil.which("gprof") is None:
        pytest.skip("gcc and gprof (GNU binutils) are needed")
    root = tmp_path_factory.mktemp("check")
    for name, flags in VARIANTS.items():
        subprocess.run([gcc, "-pg", "-g", "-O1", *flags, str(SOURCE), "-o", str(root / name)], check=True)
    yield Lab(root)


def by_index(data: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {r["index"]: r for r in data["rules"]}


def test_reruns_of_the_unchanged_program_never_fail(lab: Lab) -> None:
    """20 reruns of the deterministic program, checked against budgets taken from its first run
    with no headroom at all: the exact rules pass every time, the time rules never fail."""
    first = lab.run("base", "hash", 100_000, PER)
    out = lab.check("--suggest", "--headroom", "0", lab.binary(), first)
    assert out.returncode == 0, out.stderr
    suggested = out.stdout.replace("rules:\n", "rules:\n" + "\n".join([
        f"  - {{calls: hash, equal: {100_000 * PER}}}",
        f"  - {{arc: parse -> hash, equal: {100_000 * PER}}}",
        "  - {no_new_callers: hash}",
        "  - {no_new_arcs: true}",
        "  - {no_new_routines: true}",
        "  - {reached: [parse, hash]}",
        "  - {time_share: hash, max_percent: 100}",
        "  - {time: parse, max_increase_percent: 50}",
    ]) + "\n")  # fmt: skip
    suggested += f"baseline: {{profiles: [{json.dumps(str(first))}]}}\n"
    path = lab.budgets(suggested, "reruns.yaml")
    budgets = load_budgets(str(path))
    exact = [r.index for r in budgets.rules if r.kind not in ("time_share", "time")]
    for _ in range(20):
        gmon = lab.run("base", "hash", 100_000, PER)
        current = Side(str(lab.binary()), ProfileSource(files=(str(gmon),)))
        report = run_check(replace(budgets, current=current))
        assert not report.errors
        verdicts = {r.rule.index: r.verdict for r in report.results}
        assert "fail" not in verdicts.values(), verdicts
        assert all(verdicts[i] == "pass" for i in exact), verdicts
    assert lab.check(path).returncode == 0  # the command says the same


def test_one_extra_call_per_item_in_a_ten_million_call_run_is_caught(lab: Lab) -> None:
    base = lab.run("base", "hash", ITEMS, PER)
    budgets = lab.budgets(f"""binary: base
profiles: [{base}]
baseline: {{binary: base, profiles: [{base}]}}
rules:
  - {{calls: hash, max: {ITEMS * PER}}}
  - {{arc: parse -> hash, equal: {ITEMS * PER}}}
""", "calls.yaml")  # fmt: skip
    data = lab.check_json(budgets, 0)
    assert [r["measured"] for r in data["rules"]] == [10_000_000, 10_000_000]
    for variant, extra in (("extra_hash", ITEMS), ("extra_one", 1)):
        gmon = lab.run(variant, "hash", ITEMS, PER)
        text = budgets.read_text().replace(
            f"binary: base\nprofiles: [{base}]", f"binary: {variant}\nprofiles: [{gmon}]"
        )
        data = lab.check_json(lab.budgets(text, f"{variant}.yaml"), 1)
        for rule in data["rules"]:
            assert rule["verdict"] == "fail"
            assert rule["measured"] == ITEMS * PER + extra
        arcs = data["rules"][0]["arcs"]  # the arc that carries the change, against the baseline
        assert arcs[0]["caller"] == "parse" and arcs[0]["callee"] == "hash"
        assert arcs[0]["count"] - arcs[0]["baseline"] == extra
    out = lab.check(lab.budgets(text, "one.yaml"))
    assert out.returncode == 1
    assert "FAIL       calls(hash) <= 10,000,000: 10,000,001" in out.stdout
    assert "parse -> hash: 10,000,001 (baseline 10,000,000, +1)" in out.stdout


def test_a_new_caller_arc_is_caught(lab: Lab) -> None:
    base = lab.run("base", "hash", 10_000, PER)
    new = lab.run("new_caller", "hash", 10_000, PER)
    budgets = lab.budgets(f"""binary: new_caller
profiles: [{new}]
baseline: {{binary: base, profiles: [{base}]}}
rules:
  - {{no_new_callers: hash}}
  - {{no_new_arcs: true}}
  - {{no_new_arcs: parse}}
  - {{no_new_routines: true}}
  - {{no_new_callers: parse}}
""", "arcs.yaml")  # fmt: skip
    rules = by_index(lab.check_json(budgets, 1))
    assert rules[1]["verdict"] == "fail" and rules[1]["measured"] == ["lookup"]
    assert rules[1]["arcs"][0] == {"caller": "lookup", "callee": "hash", "count": 10, "baseline": 0,
                                   "seconds": None, "baseline_seconds": None}  # fmt: skip
    assert sorted(rules[2]["measured"]) == ["lookup -> hash", "parse -> lookup"]
    assert rules[3]["measured"] == ["parse -> lookup"]
    assert rules[4]["measured"] == ["lookup"]
    assert rules[5]["verdict"] == "pass"


def _exponent(
    lab: Lab, mode: str, sizes: list[int], order: str, of: str = "calls", k: int = 0
) -> dict[str, Any]:
    entries = ", ".join(f"{n}: {lab.run('base', mode, n, *([k] if k else []))}" for n in sizes)
    routine = {"spin": "spin"}.get(mode, "compare")
    path = lab.budgets(
        f"binary: base\nrules:\n  - {{scaling: {routine}, of: {of}, sizes: {{{entries}}}, max_order: {order}}}\n",
        f"scaling-{mode}-{len(sizes)}-{order.replace(' ', '')}.yaml",
    )
    out = lab.check("--json", path)
    assert out.returncode in (0, 1), out.stderr
    rule: dict[str, Any] = json.loads(out.stdout)["rules"][0]
    return rule


@pytest.mark.parametrize("sizes", [[1000, 2000, 4000], [1000, 2000, 4000, 8000]], ids=["1k-4k", "1k-8k"])
def test_exponents_of_an_n_log_n_and_an_n_squared_sort(lab: Lab, sizes: list[int]) -> None:
    """compare() is called ~n log2 n times by the merge sort, ~n^2/4 by the insertion sort: the
    fitted exponent is within 0.1 of each order's own (n log n's over these sizes: 1.13 at
    1k-4k), and the rules tell the two apart."""
    nlogn_truth = order_exponent(parse_order("n log n"), sizes)  # type: ignore[arg-type]
    merge = _exponent(lab, "nlogn", sizes, "n log n")
    assert abs(merge["exponent"] - nlogn_truth) < 0.1
    assert merge["verdict"] == "pass" and merge["like"] == "n log n"
    assert merge["order_exponent"] == pytest.approx(nlogn_truth)
    assert merge["exponent_error"] < 0.05
    insertion = _exponent(lab, "n2", sizes, "n log n")
    assert abs(insertion["exponent"] - 2.0) < 0.1
    assert insertion["verdict"] == "fail" and insertion["like"] == "n^2"
    assert _exponent(lab, "n2", sizes, "n^2")["verdict"] == "pass"
    assert _exponent(lab, "nlogn", sizes, "n^2")["verdict"] == "pass"


def test_time_exponent_carries_its_sampling_error(lab: Lab) -> None:
    """spin() runs n^2 * k iterations: its time's exponent is 2 within the ± the samples give,
    beyond noise above n log n."""
    rule = _exponent(lab, "spin", [500, 1000, 2000], "n log n", of="time", k=500)
    assert 0 < rule["exponent_error"] < 0.2
    assert abs(rule["exponent"] - 2.0) < max(0.1, 3.5 * rule["exponent_error"])
    assert rule["verdict"] == "fail"
    assert math.isfinite(rule["order_exponent"])


def test_time_rules_say_not_enough_samples_on_a_short_run(lab: Lab) -> None:
    gmon = lab.run("base", "hash", 1000, PER)  # a few ms: a sample or none
    path = lab.budgets(f"binary: base\nprofiles: [{gmon}]\nrules:\n  - {{time_share: parse, max_percent: 90}}\n"
                       "  - {time: parse, max_seconds: 10}\n", "short.yaml")  # fmt: skip
    out = lab.check(path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("not enough samples to decide") == 2
    assert "UNDECIDED" in out.stdout


def test_suggested_budgets_pass_on_the_run_they_came_from(lab: Lab) -> None:
    gmon = lab.run("base", "nlogn", 5000)
    written = lab.root / "suggested.yaml"
    out = lab.check("--suggest", "--headroom", "5", "-o", written, lab.binary(), gmon)
    assert out.returncode == 0, out.stderr
    text = written.read_text()
    assert '{calls: "compare", max: ' in text and '{calls: "merge_sort", max: ' in text
    assert lab.check(written).returncode == 0


def test_per_test_profiles_with_a_per_test_baseline(lab: Lab) -> None:
    """A `gmonlens test` folder (test_runs.py's layout): each rule per test, a baseline per test."""
    for side, variant in (("new", "extra_one"), ("old", "base")):
        folder = lab.root / side
        folder.mkdir()
        tests = []
        for name, items in (("small", 100), ("large", 1000)):
            (folder / name).mkdir()
            shutil.move(str(lab.run(variant, "hash", items, PER)), folder / name / "gmon.out.1")
            tests.append({"name": name, "status": "passed", "profiles": [f"{name}/gmon.out.1"]})
        (folder / "index.json").write_text(json.dumps({"tests": tests}))
    path = lab.budgets("""binary: extra_one
profiles: new
baseline: {binary: base, profiles: old}
rules:
  - {calls: hash, max: 5000}
  - {calls: hash, max: 1000, tests: [small]}
  - {arc: parse -> hash, max: 20000}
""", "pertest.yaml")  # fmt: skip
    data = lab.check_json(path, 1)
    assert data["tests"] == ["small", "large"]
    first, second, third = data["rules"]
    assert [(t["test"], t["verdict"], t["measured"]) for t in first["tests"]] == [
        ("small", "pass", 1001),
        ("large", "fail", 10001),
    ]
    assert first["verdict"] == "fail" and first["test"] == "large"
    assert first["arcs"][0]["baseline"] == 10000  # large's own baseline
    assert [t["test"] for t in second["tests"]] == ["small"] and second["verdict"] == "fail"
    assert third["verdict"] == "pass"
