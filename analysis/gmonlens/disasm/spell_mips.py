"""capstone's MIPS text as GNU objdump 2.40 prints it (mips-linux-gnu-objdump,
mips64el-linux-gnuabi64-objdump -d), pure string work; rules read off objdump's output for gcc
-O0/-O2 code (o32 big-endian, n64 little-endian).

- Registers by their ABI names without `$` (`$fp` is `s8`); operands joined by `,`.
- Arithmetic immediates and memory offsets in decimal (`addiu sp,sp,-32`, `lw a0,0(v0)`); logical
  immediates (`andi`, `ori`, `xori`), `lui`'s, shift amounts and trap codes in hex.
- `addiu`/`daddiu` from `zero` is `li` (decimal), `ori` from `zero` is `li` (hex).
- Branch and jump targets as bare hex addresses.
"""

from __future__ import annotations

import re

_HEX_IMM = frozenset(
    {"andi", "ori", "xori", "lui", "sll", "srl", "sra", "dsll", "dsrl", "dsra", "dsll32", "dsrl32",
     "dsra32", "rotr", "drotr", "drotr32", "teq", "tne", "tge", "tgeu", "tlt", "tltu", "break", "syscall",
     "ext", "ins", "dext", "dins", "dextm", "dextu", "dinsm", "dinsu", "sync", "cache", "pref"}
)  # fmt: skip
BRANCHES = frozenset(
    {"b", "bal", "j", "jal", "beq", "bne", "beqz", "bnez", "blez", "bgtz", "bltz", "bgez", "bltzal",
     "bgezal", "beql", "bnel", "beqzl", "bnezl", "blezl", "bgtzl", "bltzl", "bgezl", "bc1t", "bc1f",
     "bc1tl", "bc1fl", "jalx"}
)  # fmt: skip
_NUM = re.compile(r"(?<![\w.$])(-?)(0x[0-9a-f]+|\d+)(?![\w.])")
_MEM = re.compile(r"^(-?(?:0x[0-9a-f]+|\d+))?\((\$\w+)\)$")
_REG = {"$fp": "s8"}
# n32/n64: $8-$15 are a4-a7, t0-t3 (capstone names them as o32 does: t0-t7)
_N64 = {
    "$t0": "a4",
    "$t1": "a5",
    "$t2": "a6",
    "$t3": "a7",
    "$t4": "t0",
    "$t5": "t1",
    "$t6": "t2",
    "$t7": "t3",
}


def _reg(text: str, n64: bool = False) -> str:
    if n64 and text in _N64:
        return _N64[text]
    return _REG.get(text, text[1:] if text.startswith("$") else text)


def _num(text: str, hexa: bool) -> str:
    def sub(m: re.Match[str]) -> str:
        value = int(m.group(2), 0)
        if hexa:
            return f"-{hex(value)}" if m.group(1) else hex(value)
        return f"{m.group(1)}{value}"

    return _NUM.sub(sub, text)


def _operand(text: str, hexa: bool, n64: bool) -> str:
    mem = _MEM.match(text)
    if mem:
        return f"{_num(mem.group(1) or '0', False)}({_reg(mem.group(2), n64)})"
    if text.startswith("$"):
        return _reg(text, n64)
    return _num(text, hexa)


def spell(mnemonic: str, ops: str, address: int, n64: bool = False) -> str:
    """objdump's text of the instruction capstone gives as `mnemonic ops` at `address`; `n64`:
    the 64-bit ABIs' register names."""
    parts = [p.strip() for p in ops.split(",")] if ops else []
    if mnemonic in ("addiu", "daddiu", "ori") and len(parts) == 3 and parts[1] == "$zero":
        hexa = mnemonic == "ori"
        return f"li\t{_reg(parts[0], n64)},{_num(parts[2], hexa)}"
    if mnemonic in BRANCHES and parts:
        last = parts[-1]
        parts = [*(_operand(p, False, n64) for p in parts[:-1]), last[2:] if last.startswith("0x") else last]
        return f"{mnemonic}\t{','.join(parts)}"
    hexa = mnemonic in _HEX_IMM
    shown = [_operand(p, hexa, n64) for p in parts]
    return f"{mnemonic}\t{','.join(shown)}" if shown else mnemonic


def kind(mnemonic: str, ops: str) -> tuple[str, int | None]:
    """("call" | "jump" | "branch" | "return" | "other", direct target) of an instruction."""
    last = ops.rsplit(",", 1)[-1].strip() if ops else ""
    target = int(last, 16) if mnemonic in BRANCHES and re.fullmatch(r"0x[0-9a-f]+", last) else None
    if mnemonic in ("jal", "bal", "jalx", "bgezal", "bltzal"):
        return "call", target
    if mnemonic == "jalr":
        return "call", None
    if mnemonic == "jr":
        return ("return", None) if last == "$ra" else ("jump", None)
    if mnemonic in ("j", "b"):
        return "jump", target
    if mnemonic in BRANCHES:
        return "branch", target
    return "other", None
