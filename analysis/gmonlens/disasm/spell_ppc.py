"""capstone's POWER text as GNU objdump 2.40 prints it (powerpc64le-, powerpc64- and
powerpc-linux-gnu-objdump -d), pure string work; rules read off objdump's output for gcc -O0/-O2
code (ELFv2 little-endian, ELFv1 and 32-bit big-endian).

- Operands joined by `,`; immediates and displacements in decimal (`lis r6,5405`).
- Branch targets as bare hex addresses.
- objdump's extended mnemonics where capstone prints the base form: `or. rA,rS,rS` is `mr.`,
  `mtcrf 0xff,rS` is `mtcr`, `rldicl rA,rS,64-n,n` is `srdi`, `rldicr rA,rS,0,63-n` is
  `clrrdi`, `rlwinm rA,rS,0,0,31-n` is `clrrwi`; a condition-register bit is `4*crN+bit`;
  `bc`'s always-taken form with link (capstone's `bdnzl` of BO 20) is `bcl 20,4*cr7+so,target`.
"""

from __future__ import annotations

import re

_NUM = re.compile(r"(?<![\w.])(-?)(0x[0-9a-f]+|\d+)(?![\w.])")
_CRBIT = re.compile(r"\bcr([0-7])(lt|gt|eq|so|un)\b")
BRANCH = re.compile(r"^b(?!ctr|lr|ctrl|lrl)[a-z]*[+-]?$")


def _decimal(m: re.Match[str]) -> str:
    return f"{m.group(1)}{int(m.group(2), 0)}"


def _crbit(m: re.Match[str]) -> str:
    bit = "so" if m.group(2) == "un" else m.group(2)
    return f"4*cr{m.group(1)}+{bit}"


def _alias(mnemonic: str, p: list[str]) -> tuple[str, list[str]] | None:
    def n(i: int) -> int:
        return int(p[i], 0)

    if mnemonic in ("or", "or.") and len(p) == 3 and p[1] == p[2]:
        return ("mr" if mnemonic == "or" else "mr."), [p[0], p[1]]
    if mnemonic == "mtcrf" and len(p) == 2 and n(0) == 0xFF:
        return "mtcr", [p[1]]
    if mnemonic == "rldicl" and len(p) == 4 and n(2) + n(3) == 64 and n(3):
        return "srdi", [p[0], p[1], str(n(3))]
    if mnemonic == "rldicr" and len(p) == 4 and n(2) == 0:
        return "clrrdi", [p[0], p[1], str(63 - n(3))]
    if mnemonic == "rlwinm" and len(p) == 5 and n(2) == 0 and n(3) == 0:
        return "clrrwi", [p[0], p[1], str(31 - n(4))]
    return None


def spell(mnemonic: str, ops: str, address: int) -> str:
    """objdump's text of the instruction capstone gives as `mnemonic ops` at `address`."""
    if mnemonic == "bdnzl" and ops.startswith("0x"):  # BO 20: always, and link
        return f"bcl\t20,4*cr7+so,{ops[2:]}"
    parts = [x.strip() for x in ops.split(",")] if ops else []
    try:
        alias = _alias(mnemonic, parts)
    except ValueError:
        alias = None
    if alias is not None:
        mnemonic, parts = alias
    if BRANCH.match(mnemonic) and parts and parts[-1].startswith("0x"):
        parts[-1] = parts[-1][2:]
        head = [_CRBIT.sub(_crbit, _NUM.sub(_decimal, x)) for x in parts[:-1]]
        return f"{mnemonic}\t{','.join([*head, parts[-1]])}"
    shown = [_CRBIT.sub(_crbit, _NUM.sub(_decimal, x)) for x in parts]
    return f"{mnemonic}\t{','.join(shown)}" if shown else mnemonic


def kind(mnemonic: str, ops: str) -> tuple[str, int | None]:
    """("call" | "jump" | "branch" | "return" | "other", direct target) of an instruction."""
    last = ops.rsplit(",", 1)[-1].strip() if ops else ""
    target = int(last, 16) if re.fullmatch(r"0x[0-9a-f]+", last) and BRANCH.match(mnemonic) else None
    if mnemonic in ("bl", "bla"):
        return "call", target
    if mnemonic in ("bctrl", "blrl"):
        return "call", None
    if mnemonic == "blr":
        return "return", None
    if mnemonic in ("b", "ba"):
        return "jump", target
    if mnemonic == "bctr":
        return "jump", None
    if mnemonic.endswith("lr") and mnemonic.startswith("b"):
        return "return", None  # conditional return (`beqlr`)
    if target is not None:
        return "branch", target
    return "other", None
