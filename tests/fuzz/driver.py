"""Fuzz driver: runs `gmonlens report` (cli.main, in-process) on each job of a JSON job file and
prints one JSON result per job on stdout: {"i", "rc", "outcome", "detail"}.

outcome: "ok" (exit 0), "error" (non-zero exit, exactly one non-warning stderr line, no
traceback), "traceback" (an exception escaped main, or "Traceback" on stderr), "multiline" (an
error spread over several lines), "hang" (SIGALRM after the per-input limit). A crash by signal
kills this process: the parent sees the job that was started last ("start" line) and resumes
after it. Usage: python -m fuzz.driver JOBS.json FIRST PER_INPUT_SECONDS
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import traceback


class Hang(BaseException):
    pass


def _alarm(_sig: int, _frame: object) -> None:
    raise Hang


def run_one(argv: list[str], limit: int) -> tuple[int, str, str]:
    from gmonlens_cli.main import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape")
    signal.alarm(limit)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(argv)
    except Hang:
        return -1, "hang", " ".join(argv)
    except BaseException:
        return -1, "traceback", traceback.format_exc()[-600:]
    finally:
        signal.alarm(0)
    err.flush()
    text = err.buffer.getvalue().decode("utf-8", "replace")  # type: ignore[attr-defined]
    if "Traceback" in text:
        return rc, "traceback", text[-600:]
    if rc == 0:
        return rc, "ok", ""
    errors = [ln for ln in text.splitlines() if not ln.startswith("gmonlens: warning:")]
    if len(errors) != 1:
        return rc, "multiline", text[-600:]
    return rc, "error", errors[0][:200]


def main(argv: list[str]) -> int:
    limit_as = int(os.environ.get("GMONLENS_FUZZ_AS", "0"))
    if limit_as:  # an input that makes us allocate past it fails (MemoryError: a traceback), no swap
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
    jobs = json.loads(open(argv[0], encoding="utf-8").read())  # noqa: SIM115
    first, limit = int(argv[1]), int(argv[2])
    signal.signal(signal.SIGALRM, _alarm)
    real_out = sys.stdout
    for i in range(first, len(jobs)):
        job = jobs[i]
        os.chdir(job["cwd"])
        print(json.dumps({"start": i}), file=real_out, flush=True)
        rc, outcome, detail = run_one(job["argv"], limit)
        print(json.dumps({"i": i, "rc": rc, "outcome": outcome, "detail": detail}), file=real_out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
