"""capstone's 32-bit ARM text (A32 and Thumb-2) as GNU objdump 2.40 prints it
(arm-linux-gnueabihf-, arm-linux-gnueabi-, arm-none-eabi-objdump -d), pure string work; rules read
off objdump's output for gcc -O0/-O2 code (-marm, -mthumb, Cortex-M).

- Operands as capstone joins them (`, `); immediates in decimal (`#28`, `#-4`); `r9` for capstone's
  `sb`; objdump's condition names `cs`/`cc` for `hs`/`lo`.
- Branch targets as bare hex addresses (`bl 54c`); in Thumb a 16-bit branch is `b.n`/`beq.n`, a
  32-bit one of a mnemonic that also has a 16-bit encoding carries `.w` (`and.w`, `ldr.w`, `b.w`).
- `str rN, [sp, #-4]!` is `push {rN}`, `ldr rN, [sp], #4` is `pop {rN}`; the A32 hint `nop` is
  `nop {0}`, A32's `mov r0, r0` is `nop`; `adr rN, #x` is `add rN, pc, #x`; Thumb-2's 32-bit
  `push`/`pop` of several registers are `stmdb sp!, {...}`/`ldmia.w sp!, {...}`, of one
  `str.w rN, [sp, #-4]!`/`ldr.w rN, [sp], #4`; a 16-bit Thumb load or store at offset 0 shows
  its `#0`; Thumb's `ldm`/`stm` are `ldmia`/`stmia`; a modified immediate of a logical or move
  instruction is unsigned (`mov.w r3, #3758153728`); `bkpt 0x00ab`.
- Data in code (after a `$d` mapping symbol: literal pools) is `.word 0x%08x` (`.short` for two
  bytes), as objdump prints it: `data_word`.
"""

from __future__ import annotations

import re
from typing import Literal

_NUM = re.compile(r"#(-?)(0x[0-9a-f]+|\d+)\b")
_SB = re.compile(r"\bsb\b")
_CONDS = (
    "eq",
    "ne",
    "cs",
    "cc",
    "mi",
    "pl",
    "vs",
    "vc",
    "hi",
    "ls",
    "ge",
    "lt",
    "gt",
    "le",
    "al",
    "hs",
    "lo",
)
_COND_NAMES = {"hs": "cs", "lo": "cc"}
_BRANCH = re.compile(r"^(b|bl|blx|cbz|cbnz)(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.[nw])?$")
# mnemonics with a 16-bit Thumb encoding: their 32-bit encodings print with `.w`
_NARROW = frozenset(
    {"and", "ands", "orr", "orrs", "eor", "eors", "bic", "bics", "adc", "adcs", "sbc", "sbcs", "mvn",
     "mvns", "mov", "movs", "cmp", "cmn", "tst", "add", "adds", "sub", "subs", "rsbs", "lsl",
     "lsls", "lsr", "lsrs", "asr", "asrs", "ror", "rors", "mul", "muls", "ldr", "ldrb", "ldrh", "ldrsb",
     "ldrsh", "str", "strb", "strh", "b", "nop", "rev", "rev16", "revsh", "sxtb", "sxth", "uxtb", "uxth",
     "ldm", "ldmia", "stm", "stmia", "neg", "negs", "yield", "wfe", "wfi", "sev"}
)  # fmt: skip


_UNSIGNED = frozenset(
    {
        "mov",
        "movs",
        "mvn",
        "mvns",
        "and",
        "ands",
        "orr",
        "orrs",
        "eor",
        "eors",
        "bic",
        "bics",
        "orn",
        "orns",
        "tst",
        "teq",
    }
)
_NEG = re.compile(r"#-(0x[0-9a-f]+|\d+)\b")
_SPECIAL = re.compile(r"\b(msp|psp|primask|basepri|basepri_max|faultmask|control|apsr|ipsr|epsr|xpsr)\b")
_MINUS_ZERO = re.compile(r", #-0(?:x0)?\]")
_LOAD_STORE = frozenset({"ldr", "str", "ldrb", "strb", "ldrh", "strh"})


def _decimal(m: re.Match[str]) -> str:
    return f"#{m.group(1)}{int(m.group(2), 0)}"


def _split_cond(mnemonic: str) -> tuple[str, str, str]:
    """(base, condition, width suffix) of a mnemonic (`bhs.w` -> `b`, `hs`, `.w`)."""
    width = ""
    if mnemonic.endswith((".w", ".n")):
        mnemonic, width = mnemonic[:-2], mnemonic[-2:]
    for c in _CONDS:
        if mnemonic.endswith(c) and len(mnemonic) > len(c):
            base = mnemonic[: -len(c)]
            if base in _NARROW or base in ("bl", "blx", "bx", "it", "push", "pop", "movw", "movt"):
                return base, c, width
    return mnemonic, "", width


def data_word(raw: bytes, little: bool) -> str:
    """objdump's text for data in code (`$d`): a word, or a halfword at the end."""
    order: Literal["little", "big"] = "little" if little else "big"
    if len(raw) == 4:
        return f".word\t0x{int.from_bytes(raw, order):08x}"
    if len(raw) == 2:
        return f".short\t0x{int.from_bytes(raw, order):04x}"
    return ".byte\t" + ", ".join(f"0x{b:02x}" for b in raw)


def spell(mnemonic: str, ops: str, address: int, size: int, thumb: bool) -> str:
    """objdump's text of the instruction capstone gives as `mnemonic ops` (`size` bytes, Thumb
    or A32) at `address`."""
    ops = _SB.sub("r9", ops)
    base, cond, width = _split_cond(mnemonic)
    cond = _COND_NAMES.get(cond, cond)
    if (
        base == "str"
        and not thumb
        and not cond
        and ops.endswith(", [sp, #-4]!")
        and "," not in ops[: -len(", [sp, #-4]!")]
    ):
        return f"push\t{{{ops[: -len(', [sp, #-4]!')]}}}"
    if (
        base == "ldr"
        and not thumb
        and not cond
        and ops.endswith(", [sp], #4")
        and "," not in ops[: -len(", [sp], #4")]
    ):
        return f"pop\t{{{ops[: -len(', [sp], #4')]}}}"
    if base in ("push", "pop") and thumb and size == 4:
        regs = ops.strip("{}")
        if "," in regs:
            base, width, ops = (
                ("stmdb", "", "sp!, " + ops) if base == "push" else ("ldmia", ".w", "sp!, " + ops)
            )
        else:
            return f"str.w\t{regs}, [sp, #-4]!" if base == "push" else f"ldr.w\t{regs}, [sp], #4"
    if base == "nop" and not thumb:
        return "nop\t{0}"
    if base == "mov" and not thumb and not cond and ops == "r0, r0":
        return "nop"
    if base in ("mrs", "msr"):  # M-profile special registers in capitals (`mrs r0, MSP`)
        ops = _SPECIAL.sub(lambda m: m.group(1).upper(), ops)
    ops = _MINUS_ZERO.sub("]", ops)  # an offset of -0 (U bit clear) shows as none
    if (
        thumb
        and size == 2
        and base in _LOAD_STORE
        and ops.endswith("]")
        and ", [" in ops
        and "," not in ops.split("[")[1]
    ):
        ops = ops[:-1] + ", #0]"  # a 16-bit immediate-offset load or store shows its #0
    if base == "adr":
        reg, _, imm = ops.partition(", ")
        return f"add{cond}\t{reg}, pc, {_NUM.sub(_decimal, imm)}"
    branch = _BRANCH.match(base + cond)
    if branch and ops.startswith("#0x"):
        if thumb and base == "b":
            width = ".n" if size == 2 else ".w"
        return f"{base}{cond}{width}\t{ops[3:]}"
    if base in ("cbz", "cbnz") and ", #0x" in ops:
        reg, _, target = ops.partition(", #0x")
        return f"{base}\t{reg}, {target}"
    if base == "bkpt" and ops.startswith("#"):
        return f"bkpt\t0x{int(ops[1:], 0):04x}"
    if thumb and base in ("ldm", "stm"):
        base += "ia"
    if thumb and size == 4 and not width and (base in _NARROW or base in ("ldmia", "stmia")):
        width = ".w"
    if base in _UNSIGNED:  # a modified immediate: objdump shows its 32 bits unsigned
        ops = _NEG.sub(lambda m: f"#{(-int(m.group(1), 0)) & 0xFFFFFFFF}", ops)
    text = _NUM.sub(_decimal, ops)
    return f"{base}{cond}{width}\t{text}" if text else f"{base}{cond}{width}"


def kind(mnemonic: str, ops: str) -> tuple[str, int | None]:
    """("call" | "jump" | "branch" | "return" | "other", direct target) of an instruction."""
    base, cond, _ = _split_cond(mnemonic)
    target = int(ops[3:], 16) if ops.startswith("#0x") else None
    if base in ("cbz", "cbnz"):
        last = ops.rsplit("#", 1)[-1]
        return "branch", int(last, 16) if last.startswith("0x") else None
    if base in ("bl", "blx"):
        return "call", target
    if base == "bx":
        return ("return", None) if ops == "lr" else ("jump", None)
    if base == "b":
        return ("branch" if cond and cond != "al" else "jump"), target
    if (base == "pop" and "pc" in ops) or (base == "ldm" and "pc" in ops):
        return "return", None
    return "other", None
