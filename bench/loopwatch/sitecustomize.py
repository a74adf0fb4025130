"""Loop and GIL watchdog for a server under test (bench/loopwatch.py puts this folder on
PYTHONPATH and sets GMONLENS_LOOPWATCH=FILE). Every 10 ms a thread (1) notes how late it woke
(a thread holding the GIL without letting go delays it: the longest GIL hold), and (2) posts a
callback to the asyncio loop and notes how long the loop took to run it (the longest loop stall).
Every stall over 50 ms is written to FILE as one JSON line with the stacks of the other threads
seen at the time it was noticed."""

import os

if os.environ.get("GMONLENS_LOOPWATCH"):
    import asyncio
    import contextlib
    import json
    import sys
    import threading
    import time
    import traceback

    _out = open(os.environ["GMONLENS_LOOPWATCH"], "a", buffering=1)  # noqa: SIM115 (for the process's life)
    _loops: list = []
    _orig = asyncio.BaseEventLoop.run_forever

    def _run_forever(self):  # type: ignore[no-untyped-def]
        _loops.append(self)
        return _orig(self)

    asyncio.BaseEventLoop.run_forever = _run_forever  # type: ignore[method-assign]

    def _stacks() -> dict:
        me = threading.get_ident()
        names = {t.ident: t.name for t in threading.enumerate()}
        return {
            names.get(tid, str(tid)): "".join(traceback.format_stack(f, limit=8))[-1500:]
            for tid, f in sys._current_frames().items()
            if tid != me
        }

    def _watch() -> None:
        pending: list = []  # [posted_at, ran_at]
        while True:
            t0 = time.perf_counter()
            time.sleep(0.01)
            t1 = time.perf_counter()
            late = (t1 - t0 - 0.01) * 1000
            if late > 50:
                _out.write(
                    json.dumps({"t": time.time(), "kind": "gil", "ms": round(late, 1), "stacks": _stacks()})
                    + "\n"
                )
            if _loops and not _loops[-1].is_closed():
                loop = _loops[-1]
                if pending and pending[-1][1] is None:
                    lag = (t1 - pending[-1][0]) * 1000
                    if lag > 50 and not pending[-1][2]:
                        pending[-1][2] = True
                        _out.write(
                            json.dumps(
                                {"t": time.time(), "kind": "loop", "ms": round(lag, 1), "stacks": _stacks()}
                            )
                            + "\n"
                        )
                    continue
                if pending and pending[-1][1] is not None:
                    lag = (pending[-1][1] - pending[-1][0]) * 1000
                    if lag > 50:
                        _out.write(
                            json.dumps({"t": time.time(), "kind": "loop-done", "ms": round(lag, 1)}) + "\n"
                        )
                entry = [time.perf_counter(), None, False]

                def ran(e=entry) -> None:
                    e[1] = time.perf_counter()

                pending[:] = [entry]
                with contextlib.suppress(RuntimeError):  # the loop closed
                    loop.call_soon_threadsafe(ran)

    threading.Thread(target=_watch, name="loopwatch", daemon=True).start()

    import gc

    _gc_start = [0.0]

    def _gc_pass(phase: str, info: dict) -> None:  # every collection over 20 ms, by generation
        if phase == "start":
            _gc_start[0] = time.perf_counter()
            return
        ms = (time.perf_counter() - _gc_start[0]) * 1000
        if ms > 20:
            _out.write(
                json.dumps(
                    {
                        "t": time.time(),
                        "kind": "gc",
                        "ms": round(ms, 1),
                        "generation": info.get("generation"),
                        "collected": info.get("collected"),
                        "thread": threading.current_thread().name,
                    }
                )
                + "\n"
            )

    gc.callbacks.append(_gc_pass)

if os.environ.get("GMONLENS_SWITCH_INTERVAL"):  # experiments: the GIL's switch interval, seconds
    import sys as _sys

    _sys.setswitchinterval(float(os.environ["GMONLENS_SWITCH_INTERVAL"]))
