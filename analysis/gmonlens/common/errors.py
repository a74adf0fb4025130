"""The engine's exceptions: each renders as one line naming the file and the problem."""

from __future__ import annotations


class GmonlensError(Exception):
    """Bad input or a refusal; `str()` is `PATH: message`."""

    def __init__(self, path: str | None, message: str) -> None:
        message = single_line(message)
        super().__init__(f"{single_line(path)}: {message}" if path else message)
        self.path = path
        self.message = message


_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, 0x85, 0x2028, 0x2029)}
_CONTROL.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): " "})


def single_line(text: str) -> str:
    """`text` with line breaks and other control characters escaped: an error is always one line,
    whatever a file name or a file's bytes (e.g. a histogram's dimension text) hold."""
    return text.translate(_CONTROL)


class GmonFormatError(GmonlensError):
    """A profile file that is not a valid gmon.out, or that cannot be summed with the others."""


class ElfError(GmonlensError):
    """An executable that cannot serve as gprof's image (not ELF, no symbols, ...)."""


class UsageError(GmonlensError):
    """Bad command-line or option values."""


def one_line(e: BaseException) -> str:
    """An exception as one short line for a message (type name when it has no text)."""
    text = " ".join(str(e).split())
    if len(text) > 200:
        text = text[:200] + "..."
    return text or type(e).__name__


def reason(e: BaseException) -> str:
    """Why something failed, for a message about one file: an engine error's own message (without
    the path, which the caller names), "out of memory", or `one_line`; never empty."""
    if isinstance(e, GmonlensError):
        return e.message or type(e).__name__
    if isinstance(e, MemoryError):
        return "out of memory"
    return one_line(e)
