"""capstone's s390x text as GNU objdump 2.40 prints it (s390x-linux-gnu-objdump -d), pure string
work; rules read off objdump's output for gcc -O0/-O2 code.

- Operands joined by `,`, also inside a memory operand (`xc 0(8,%r15),0(%r15)`).
- Immediates, displacements and lengths in decimal (unsigned ones as such: `clfi %r1,3435973837`).
- pc-relative operands (`j`, `jg`, `brasl`, `brctg`, `larl`, `lgrl`...) as bare hex addresses.
- `bcr 0,%rN` is `nopr %rN` (`nopr` for %r0); `risbg` with the zero flag (0x80 in its fourth operand) is `risbgz`.
"""

from __future__ import annotations

import re

_RELATIVE = re.compile(
    r"^(j[a-z]*|br[a-z]*|bras|brasl|brct|brctg|brxh|brxle|larl|[a-z]+rl|c[gl]?[gi]?[rj][a-z]*|"
    r"cl[gi]?[jr][a-z]*|exrl|pfdrl|bprp)$"
)
_NUM = re.compile(r"(?<![\w.%])(-?)(0x[0-9a-f]+|\d+)(?![\w.])")
CALLS = frozenset({"brasl", "bras", "basr", "bas"})


def _decimal(m: re.Match[str]) -> str:
    return f"{m.group(1)}{int(m.group(2), 0)}"


def _is_relative(mnemonic: str, last: str) -> bool:
    return bool(_RELATIVE.match(mnemonic)) and last.startswith("0x") and "(" not in last


def spell(mnemonic: str, ops: str, address: int) -> str:
    """objdump's text of the instruction capstone gives as `mnemonic ops` at `address`."""
    text = ops.replace(", ", ",")
    parts = text.split(",") if text else []
    if mnemonic == "bcr" and len(parts) == 2 and parts[0] == "0":
        return "nopr" if parts[1] == "%r0" else f"nopr\t{parts[1]}"
    if mnemonic in ("risbg", "risbgn") and len(parts) == 5:
        i4 = int(parts[3], 0)
        if i4 & 0x80:
            mnemonic, parts[3] = mnemonic + "z", str(i4 & 0x7F)
    if parts and _is_relative(mnemonic, parts[-1]):
        last = parts[-1][2:]
        head = _NUM.sub(_decimal, ",".join(parts[:-1]))
        return f"{mnemonic}\t{head + ',' if head else ''}{last}"
    shown = _NUM.sub(_decimal, ",".join(parts))
    return f"{mnemonic}\t{shown}" if shown else mnemonic


def kind(mnemonic: str, ops: str) -> tuple[str, int | None]:
    """("call" | "jump" | "branch" | "return" | "other", direct target) of an instruction."""
    last = ops.rsplit(",", 1)[-1].strip() if ops else ""
    target = int(last, 16) if _is_relative(mnemonic, last) else None
    if mnemonic in CALLS:
        return "call", target
    if mnemonic == "br":
        return ("return", None) if last == "%r14" else ("jump", None)
    if mnemonic in ("j", "jg"):
        return "jump", target
    if target is not None and mnemonic.startswith(("j", "br", "c")):
        return "branch", target
    if mnemonic.startswith("b") and mnemonic.endswith("r") and mnemonic not in ("bcr",) and last == "%r14":
        return "return", None  # conditional return (`ber %r14`)
    return "other", None
