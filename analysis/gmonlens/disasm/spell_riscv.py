"""capstone's RISC-V text as GNU objdump 2.40 prints it (riscv64-linux-gnu-objdump,
riscv64-unknown-elf-objdump -d), pure string work; the rules were read off objdump's output for
gcc -O0/-O2 code (RV64GC Linux, RV32IMAC bare metal).

- Compressed instructions print as the instruction they expand to (`c.addi sp,-16` is
  `add sp,sp,-16`, `c.ldsp` is `ld`, `c.jr ra` is `ret`, `c.beqz` is `beqz`).
- An immediate form is named as its register form (`addi` is `add`, `andi` `and`, `slli` `sll`,
  `addiw` `addw`); `li`, `mv`, `sext.w`, `nop`, `ret`, `j`, `jr` stay.
- Operands are joined by `,`; immediates and offsets are decimal, but shift amounts and
  `lui`/`auipc`'s upper immediates are hex; branch and jump targets are absolute hex addresses
  (capstone gives them relative to the instruction).
"""

from __future__ import annotations

import contextlib
import re

# compressed two-operand forms whose first operand is also their first source
_C_BINARY = {
    "c.addi": "add", "c.addiw": "addw", "c.andi": "and", "c.slli": "sll", "c.srli": "srl",
    "c.srai": "sra", "c.add": "add", "c.addw": "addw", "c.sub": "sub", "c.subw": "subw",
    "c.xor": "xor", "c.or": "or", "c.and": "and", "c.addi16sp": "add",
}  # fmt: skip
_C_RENAME = {
    "c.addi4spn": "add", "c.ldsp": "ld", "c.lwsp": "lw", "c.sdsp": "sd", "c.swsp": "sw",
    "c.fldsp": "fld", "c.fsdsp": "fsd", "c.flwsp": "flw", "c.fswsp": "fsw", "c.ld": "ld",
    "c.lw": "lw", "c.sd": "sd", "c.sw": "sw", "c.fld": "fld", "c.fsd": "fsd", "c.flw": "flw",
    "c.fsw": "fsw", "c.li": "li", "c.lui": "lui", "c.mv": "mv", "c.j": "j", "c.jal": "jal",
    "c.jalr": "jalr", "c.beqz": "beqz", "c.bnez": "bnez", "c.nop": "nop", "c.ebreak": "ebreak",
}  # fmt: skip
_IMM_RENAME = {
    "addi": "add", "addiw": "addw", "andi": "and", "ori": "or", "xori": "xor", "slli": "sll",
    "srli": "srl", "srai": "sra", "slliw": "sllw", "srliw": "srlw", "sraiw": "sraw", "slti": "slt",
    "sltiu": "sltu",
}  # fmt: skip
_SHIFTS = frozenset({"sll", "srl", "sra", "sllw", "srlw", "sraw", "slli.uw"})
_UPPER = frozenset({"lui", "auipc"})
BRANCHES = frozenset(
    {"beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez", "bgez", "bltz", "bgtz", "bgt",
     "ble", "bgtu", "bleu", "j", "jal"}
)  # fmt: skip
_NUM = re.compile(r"(?<![\w.])(-?)(0x[0-9a-f]+|\d+)(?![\w.])")


def _decimal(m: re.Match[str]) -> str:
    return f"{m.group(1)}{int(m.group(2), 0)}"


def _hexnum(m: re.Match[str]) -> str:
    value = int(m.group(2), 0)
    return f"-{hex(value)}" if m.group(1) else hex(value)


def _imm(text: str) -> int | None:
    try:
        return int(text, 0)
    except ValueError:
        return None


def _alias(mnemonic: str, parts: list[str]) -> tuple[str, list[str]] | None:
    """objdump's pseudo-instruction for a base instruction (`li`, `mv`, `sext.w`, `zext.b`, `not`,
    `neg`, `seqz`, `snez`...), or None."""
    if len(parts) != 3:
        return None
    rd, rs, last = parts
    imm = _imm(last)
    if mnemonic == "addi" and rs == "zero" and imm is not None:
        return "li", [rd, last]
    if mnemonic == "addi" and imm == 0:
        return "mv", [rd, rs]
    if mnemonic == "addiw" and imm == 0:
        return "sext.w", [rd, rs]
    if mnemonic == "andi" and imm == 255:
        return "zext.b", [rd, rs]
    if mnemonic == "xori" and imm == -1:
        return "not", [rd, rs]
    if mnemonic == "sltiu" and imm == 1:
        return "seqz", [rd, rs]
    if mnemonic in ("sub", "subw") and rs == "zero":
        return ("neg" if mnemonic == "sub" else "negw"), [rd, last]
    if mnemonic == "sltu" and rs == "zero":
        return "snez", [rd, last]
    if mnemonic == "slt" and last == "zero":
        return "sltz", [rd, rs]
    if mnemonic == "slt" and rs == "zero":
        return "sgtz", [rd, last]
    return None


def spell(mnemonic: str, ops: str, address: int) -> str:
    """objdump's text of the instruction capstone gives as `mnemonic ops` at `address`."""
    parts = [p.strip() for p in ops.split(",")] if ops else []
    if mnemonic in _C_BINARY and len(parts) == 2:
        base = {"add": "addi", "addw": "addiw", "and": "andi"}.get(_C_BINARY[mnemonic], _C_BINARY[mnemonic])
        mnemonic = base if _imm(parts[1]) is not None else _C_BINARY[mnemonic]
        parts = [parts[0], parts[0], parts[1]]
    elif mnemonic == "c.jr":
        mnemonic, parts = ("ret", []) if parts == ["ra"] else ("jr", parts)
    elif mnemonic in _C_RENAME:
        mnemonic = _C_RENAME[mnemonic]
    elif mnemonic == "c.unimp":
        return "unimp"
    alias = _alias(mnemonic, parts)
    if alias is not None:
        mnemonic, parts = alias
    mnemonic = _IMM_RENAME.get(mnemonic, mnemonic)
    if mnemonic in BRANCHES and parts:  # the last operand: an offset from the instruction
        with contextlib.suppress(ValueError):
            parts[-1] = format(address + int(parts[-1], 0), "x")
        shown = parts[:-1]
        return f"{mnemonic}\t{','.join([*[_NUM.sub(_decimal, p) for p in shown], parts[-1]])}".rstrip("\t")
    if mnemonic in _SHIFTS and parts:
        parts[-1] = _NUM.sub(_hexnum, parts[-1])
        parts[:-1] = [_NUM.sub(_decimal, p) for p in parts[:-1]]
    elif mnemonic in _UPPER and parts:
        parts[-1] = _NUM.sub(_hexnum, parts[-1])
    else:
        parts = [_NUM.sub(_decimal, p) for p in parts]
    return f"{mnemonic}\t{','.join(parts)}" if parts else mnemonic


def kind(mnemonic: str, ops: str, address: int) -> tuple[str, int | None]:
    """("call" | "jump" | "branch" | "return" | "other", direct target) of an instruction."""
    text = spell(mnemonic, ops, address)
    name, _, rest = text.partition("\t")
    args = rest.split(",") if rest else []
    target = int(args[-1], 16) if name in BRANCHES and args else None
    if name == "ret":
        return "return", None
    if name == "jal":
        return ("call" if len(args) == 1 or args[0] == "ra" else "jump"), target
    if name == "jalr":
        return ("call" if len(args) == 1 or args[0] == "ra" else "jump"), None
    if name in ("j", "jr"):
        return "jump", target
    if name in BRANCHES:
        return "branch", target
    return "other", None
