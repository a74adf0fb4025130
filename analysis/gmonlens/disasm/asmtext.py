"""capstone's instruction text rewritten as GNU objdump -d prints it (pure string work).

capstone and objdump disagree on spelling, not on meaning. The rewrites below were taken from
objdump 2.40's output on gcc -O0/-O2 code for x86-64, i386 (AT&T and `-M intel`) and AArch64;
what they do not cover stays capstone's text (meaning unchanged). Branch and call targets come
out as bare hex (`call 1139`); the caller appends objdump's ` <symbol+0xoff>`.

x86 AT&T: operands joined by `,` without a space; numbers in hex (`$0x8`, `0x1(%r13)`); an index
without a scale gets `,1`; an encoded zero displacement is printed (`0x0(%rax)`); the size suffix
is dropped where a register operand fixes the size (`mov %rsp,%rbp`, `call`, `ret`, `push`);
`shl`/`sar`/... by the implicit 1 (opcodes D0/D1) print no count; `66 90` is `xchg %ax,%ax`;
`nopw %cs:` is `cs nopw` behind one `data16` per extra 0x66 prefix.
x86 Intel: the same numbers and scales, `PTR` sizes in capitals, no spaces around `+`/`-`.
AArch64: memory offsets, shift amounts and bit numbers in decimal, other immediates in hex,
targets of branches and `adr`/`adrp` without `#`, objdump's condition names (`b.cc`, `b.cs`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_X86_PREFIXES = frozenset({0x66, 0x67, 0xF2, 0xF3, 0x2E, 0x36, 0x3E, 0x26, 0x64, 0x65, 0xF0})
# mnemonics whose last letter is a size suffix objdump drops when a register fixes the size
_SUFFIXED = re.compile(
    r"^(mov|add|sub|xor|and|or|cmp|test|lea|push|pop|inc|dec|neg|not|shl|shr|sar|sal|rol|ror|rcl|rcr|"
    r"imul|mul|div|idiv|adc|sbb|xchg|bt|bts|btr|btc|cmpxchg|xadd|bsf|bsr|shld|shrd|popcnt|lzcnt|"
    r"tzcnt|movabs|bswap|cvtsi2sd|cvtsi2ss|stos|lods|movs|scas|cmps|cmov[a-z]+|set[a-z]+|"
    r"sarx|shlx|shrx|rorx|bzhi|blsmsk|blsr|blsi|andn|bextr|pdep|pext|mulx|movbe)([bwlq])$"
)
# x87 compare-and-set-flags: capstone's `fucompi %st(1)` is objdump's `fucomip %st(1),%st`
_X87_COMI = {"fucompi": "fucomip", "fcompi": "fcomip", "fucomi": "fucomi", "fcomi": "fcomi"}
_AVX512_MASK = re.compile(r" (\{%k[0-7]\}|\{z\})")
_ALWAYS_BARE = {"callq": "call", "calll": "call", "retq": "ret", "retl": "ret", "leaveq": "leave"}
_ALWAYS_BARE |= {"leavel": "leave", "jmpq": "jmp", "jmpl": "jmp", "pushq": "push", "popq": "pop"}
_GPR = re.compile(r"%(?:[re]?[abcd]x|[abcd][lh]|[re]?[sd]il?|[re]?[sb]pl?|r\d+[dwb]?)\b")
_BRANCH = re.compile(r"^(j[a-z]+|call[lq]?|loop[a-z]*|jmp[lq]?|xbegin)$")
_HEX = re.compile(r"^0x[0-9a-f]+$")
_IMM = re.compile(r"(\$)(-?)(\d+)\b(?!x)")
_DISP = re.compile(r"(^|,|\*|:)(-?)(\d+)(?=\()")
_NOSCALE = re.compile(r"\((%\w+)?,(%\w+)\)")
_PAREN = re.compile(r"\([^)]*\)")
_ABS = re.compile(r"(^|,|:)(-?)(\d+)(?=,|$)")  # an absolute address: `mov 0x8,%rax`
_X87_POP = re.compile(r"^f(add|mul|sub|subr|div|divr)p$")
_ST = re.compile(r"^%st\(\d\)$")
_NEGHEX = re.compile(r"\$-0x([0-9a-f]+)")
_SIZES = {"b": 8, "w": 16, "l": 32, "q": 64}
_SHIFTS = frozenset({"shl", "shr", "sar", "sal", "rol", "ror", "rcl", "rcr", "shld", "shrd"})
_STRING = re.compile(r"^(stos|lods|movs|scas|cmps|ins|outs)[bwlqd]?$")
_STRING_DST = re.compile(r"(?<![:\w])(\(%[re]?di\))")
_STRING_SRC = re.compile(r"(?<![:\w])(\(%[re]?si\))")
_INTEL_DISP = re.compile(r"[+-] ?(0x[0-9a-f]+|\d+)\]")
_ATT_NODISP = re.compile(r"(^|, |\*|:)\(")


def _hex(m: re.Match[str]) -> str:
    sign, digits = m.group(2), m.group(3)
    return f"{m.group(1)}{sign}{hex(int(digits))}"


def _masked(bits: int) -> Callable[[re.Match[str]], str]:
    """`$-0x1` as objdump prints a negative immediate: its two's complement in `bits`."""

    def sub(m: re.Match[str]) -> str:
        value = int(m.group(3))
        return (
            f"{m.group(1)}{hex((-value) & ((1 << bits) - 1))}" if m.group(2) else f"{m.group(1)}{hex(value)}"
        )

    return sub


def _opcode(raw: bytes, mode64: bool) -> int | None:
    i = 0
    while i < len(raw) and raw[i] in _X86_PREFIXES:
        i += 1
    if mode64 and i < len(raw) and 0x40 <= raw[i] <= 0x4F:
        i += 1
    return raw[i] if i < len(raw) else None


def _x86_att(mnemonic: str, ops: str, raw: bytes, mode64: bool, zero_disp: bool, sib_no_index: bool) -> str:
    if raw[-2:] == b"\x66\x90" and len(raw) == 2:
        return "xchg %ax,%ax"
    if mnemonic == "wait":
        return "fwait"
    if mnemonic == "xabort" and ops.startswith("$-"):  # an 8-bit immediate
        return f"xabort $0x{-int(ops[2:], 0) & 0xFF:x}"
    lead, _, mnemonic = mnemonic.rpartition(" ")  # `rep stosq`: prefixes kept as they are
    ops = ops.replace(", ", ",")
    suffixed = _SUFFIXED.match(mnemonic) or mnemonic in ("pushq", "pushl", "pushw")
    if _BRANCH.match(mnemonic) and (_HEX.match(ops) or ops.isdigit()):
        ops = _branch_target(ops, raw, mode64)
        lead = "addr32" if mode64 and raw[:1] == b"\x67" else lead
    elif ops:
        if "$" in ops:
            size = _SIZES.get(mnemonic[-1]) if suffixed else None
            ops = _IMM.sub(_hex if size is None else _masked(size), ops)
            if size is not None and "$-0x" in ops:
                mask = (1 << size) - 1
                ops = _NEGHEX.sub(lambda m: "$" + hex(-int(m.group(1), 16) & mask), ops)
        if "(" in ops:
            ops = _DISP.sub(_hex, ops)
            ops = _NOSCALE.sub(r"(\1,\2,1)", ops)
        ops = _ABS.sub(_hex, ops)
    if sib_no_index:
        ops = re.sub(r"\((%\w+)\)", r"(\1,%s,1)" % ("%riz" if mode64 else "%eiz"), ops, count=1)
    if zero_disp:
        ops = re.sub(r"(^|,|\*|:)\(", r"\g<1>0x0(", ops, count=1)
    if _STRING.match(mnemonic) and "mm" not in ops:  # not SSE's movsd
        ops = _STRING_DST.sub(r"%es:\1", ops)
        ops = _STRING_SRC.sub(r"%ds:\1", ops)
    prefix = f"{lead} " if lead else ""
    if ops.startswith("%cs:") and mnemonic.startswith("nop"):
        ops = ops[4:]
        extra = 0
        for b in raw:
            if b != 0x66:
                break
            extra += 1
        prefix = "data16 " * max(extra - 1, 0) + "cs "
    if ops.startswith("$0x1,") and _opcode(raw, mode64) in (0xD0, 0xD1):
        ops = ops[5:]
    if _X87_POP.match(mnemonic) and _ST.match(ops):
        ops = "%st," + ops
    if mnemonic in _X87_COMI and _ST.match(ops):
        mnemonic, ops = _X87_COMI[mnemonic], ops + ",%st"
    if "{" in ops:
        ops = _AVX512_MASK.sub(r"\1", ops)
    return f"{prefix}{_att_mnemonic(mnemonic, ops, mode64)} {ops}".rstrip()


def _branch_target(ops: str, raw: bytes, mode64: bool) -> str:
    """A direct branch's target as objdump prints it: bare hex; wrapped to 32 bits under an
    addr32 (0x67) prefix in 64-bit code."""
    value = int(ops, 0) if ops.startswith("0x") else int(ops)
    if mode64 and raw[:1] == b"\x67":
        value &= 0xFFFFFFFF
    return f"{value:x}"


def _att_mnemonic(mnemonic: str, ops: str, mode64: bool) -> str:
    """The mnemonic without the size suffix where objdump drops it."""
    bare = _ALWAYS_BARE.get(mnemonic)
    if bare is not None and (mode64 or mnemonic[:-1] not in ("push", "pop")):
        return bare
    if mnemonic in ("pushl", "popl") and not mode64:  # a 32-bit push is objdump's plain `push`
        return mnemonic[:-1]
    m = _SUFFIXED.match(mnemonic)
    if m is not None and not (m.group(1) == "mov" and "mm" in ops):  # SSE's movq/movd stay
        outside = _PAREN.sub("", ops) if "(" in ops else ops
        if m.group(1) in _SHIFTS and outside.startswith("%cl,"):
            outside = outside[4:]  # the count register does not fix the size
        if _GPR.search(outside):
            return m.group(1)
    return mnemonic


def _x86_intel(mnemonic: str, ops: str, raw: bytes, mode64: bool, zero_disp: bool, sib_no_index: bool) -> str:
    if raw == b"\x66\x90":
        return "xchg ax,ax"
    if mnemonic == "wait":
        return "fwait"
    if _BRANCH.match(mnemonic) and (_HEX.match(ops) or ops.isdigit()):
        lead = "addr32 " if mode64 and raw[:1] == b"\x67" else ""
        return f"{lead}{mnemonic} {_branch_target(ops, raw, mode64)}"
    if mnemonic in _X87_COMI and re.fullmatch(r"st\(\d\)", ops):
        return f"{_X87_COMI[mnemonic]} st,{ops}"
    lead, _, mnemonic = mnemonic.rpartition(" ")  # `rep stosq`
    ops = ops.replace(", ", ",").replace(" + ", "+").replace(" - ", "-")
    if _STRING.match(mnemonic) and "mm" not in ops:
        mnemonic = mnemonic[:-1] if mnemonic[-1] in "bwdq" and "PTR" in ops.upper() else mnemonic
        ops = re.sub(r"(?<!:)\[([re]?di)\]", r"es:[\1]", ops)
        ops = re.sub(r"(?<!:)\[([re]?si)\]", r"ds:[\1]", ops)

    ops = re.sub(r"\b(byte|word|dword|qword|tbyte|xmmword|ymmword|zmmword|xword) ptr\b", _upper_ptr, ops)
    ops = re.sub(r"\[(\w+)\+([a-z]\w*)(?=[\]+-])", r"[\1+\2*1", ops)
    one = _opcode(raw, mode64) in (0xD0, 0xD1) and ops.endswith(",1")
    ops = re.sub(r"(^|,|\[|\+|-|\*)(-?)(\d+)\b(?!x)", _intel_num, ops)
    if one:
        ops = ops[:-3] + "1"
    if "-0x" in ops:
        size = _intel_size(mnemonic, ops, mode64)
        if size:
            mask = (1 << size) - 1
            ops = re.sub(
                r"(^|,)-0x([0-9a-f]+)$", lambda m: m.group(1) + hex(-int(m.group(2), 16) & mask), ops
            )
    if mode64 and "[rip-0x" in ops:  # objdump: a negative rip offset as its 64-bit two's complement
        ops = re.sub(
            r"\[rip-0x([0-9a-f]+)\]", lambda m: "[rip+%s]" % hex(-int(m.group(1), 16) & (2**64 - 1)), ops
        )
    if sib_no_index:
        ops = re.sub(r"\[(\w+)", r"[\1+%s*1" % ("riz" if mode64 else "eiz"), ops, count=1)
    ops = re.sub(r"(?<!:)\[(0x[0-9a-f]+)\]", r"ds:\1", ops)  # an absolute address
    if zero_disp:
        ops = re.sub(r"\]", "+0x0]", ops, count=1)
    prefix = ""
    if "cs:[" in ops and mnemonic.startswith("nop"):
        ops = ops.replace("cs:[", "[")
        extra = 0
        for b in raw:
            if b != 0x66:
                break
            extra += 1
        prefix = "data16 " * max(extra - 1, 0) + "cs "
    prefix = f"{lead} {prefix}" if lead else prefix
    return f"{prefix}{mnemonic} {ops}".rstrip()


_INTEL_PTR = {"BYTE": 8, "WORD": 16, "DWORD": 32, "QWORD": 64}


def _intel_size(mnemonic: str, ops: str, mode64: bool) -> int | None:
    """Operand size of an Intel-syntax instruction (its first operand), for negative immediates."""
    if mnemonic == "push":
        return 64 if mode64 else 32
    first = ops.split(",", 1)[0]
    if " PTR " in first:
        return _INTEL_PTR.get(first.split(" ", 1)[0])
    if re.fullmatch(r"r\w+[dwb]", first):
        return {"d": 32, "w": 16, "b": 8}[first[-1]]
    if re.fullmatch(r"r\w\w|r\d+", first):
        return 64
    if re.fullmatch(r"e\w\w", first):
        return 32
    if re.fullmatch(r"[abcd]x|[sd]i|[sb]p", first):
        return 16
    if re.fullmatch(r"[abcd][lh]|[sd]il|[sb]pl", first):
        return 8
    return None


def _upper_ptr(m: re.Match[str]) -> str:
    return m.group(1).upper() + " PTR"


def _intel_num(m: re.Match[str]) -> str:
    if m.group(1) == "*":  # a scale
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{hex(int(m.group(3)))}"


_A64_BRANCH = re.compile(r"^(b|bl|b\.\w+|cbn?z|tbn?z|adrp?)$")
_A64_COND = {"b.lo": "b.cc", "b.hs": "b.cs"}
_A64_SHIFTS = frozenset({"lsl", "lsr", "asr", "ror"})
_A64_BITFIELD = frozenset({"sbfiz", "ubfiz", "sbfx", "ubfx", "bfi", "bfxil", "bfc", "sbfm", "ubfm", "bfm"})
_A64_VSHIFT = re.compile(
    r"^(u|s)?(r)?(shl|shr|sra|shrn|shrn2|shll|shll2|sli|sri|qshl|qshlu|qshrn|qrshrn|qshrun|qrshrun)[2]?$"
)


def _dec(m: re.Match[str]) -> str:
    return f"{m.group(1)}#{int(m.group(2), 0)}"


def _a64(mnemonic: str, ops: str) -> str:
    mnemonic = _A64_COND.get(mnemonic, mnemonic)
    if mnemonic in ("sshll", "ushll", "sshll2", "ushll2") and ops.endswith(", #0"):
        return f"{mnemonic[0]}xtl{mnemonic[5:]} {ops[:-4]}"
    if _A64_BRANCH.match(mnemonic):
        parts = ops.split(", ")
        if parts and parts[-1].startswith("#0x"):
            parts[-1] = parts[-1][3:]
        elif parts and parts[-1] == "#0":
            parts[-1] = "0"
        if mnemonic.startswith("tb") and len(parts) == 3:
            parts[1] = "#%d" % int(parts[1][1:], 0)
        return f"{mnemonic} {', '.join(parts)}".rstrip()
    if ops.endswith((", lo", ", hs")):  # a condition operand (cset, csel, ccmp, ...)
        ops = ops[:-2] + _A64_COND["b." + ops[-2:]][2:]
    if "." in ops and "#" in ops:  # a floating-point immediate, as objdump prints it
        ops = re.sub(r"#(-?\d+\.\d+)\b", lambda m: "#%.18e" % float(m.group(1)), ops)
    # immediates in hex; then memory offsets, shift amounts and shift counts in decimal
    ops = re.sub(r"(^|, )#(-?)(\d+)\b(?![x.])", _hexa, ops)
    ops = re.sub(r"(\[[^\]]*, )#(-?(?:0x[0-9a-f]+|\d+))", _dec, ops)
    ops = re.sub(r"(\], )#(-?(?:0x[0-9a-f]+|\d+))", _dec, ops)
    ops = re.sub(r"((?:lsl|lsr|asr|ror|msl) )#(0x[0-9a-f]+|\d+)", _dec, ops)
    if mnemonic in _A64_BITFIELD:
        ops = re.sub(r"#(0x[0-9a-f]+|\d+)", lambda m: "#%d" % int(m.group(1), 0), ops)
    if mnemonic in ("mov", "movn", "movk", "movz") and "#-0x" in ops:
        bits = 64 if ops.startswith("x") else 32
        ops = re.sub(r"#-0x([0-9a-f]+)$", lambda m: "#" + hex(-int(m.group(1), 16) & ((1 << bits) - 1)), ops)
    if mnemonic in _A64_SHIFTS or _A64_VSHIFT.match(mnemonic):
        ops = re.sub(r"(, )#(0x[0-9a-f]+|\d+)$", _dec_plain, ops)
    return f"{mnemonic} {ops}".rstrip()


def _dec_plain(m: re.Match[str]) -> str:
    return f"{m.group(1)}#{int(m.group(2), 0)}"


def _hexa(m: re.Match[str]) -> str:
    return f"{m.group(1)}#{m.group(2)}{hex(int(m.group(3)))}"


def objdump_text(
    arch: str,
    mnemonic: str,
    ops: str,
    syntax: str,
    raw: bytes,
    zero_disp: bool = False,
    sib_no_index: bool = False,
) -> str:
    """objdump's text for one capstone instruction (module docstring).

    `arch`: "x64", "x86" or "a64"; `syntax`: "att" or "intel" (x86 only); `raw`: the instruction's
    bytes; `zero_disp`: the encoding holds a displacement that capstone does not print (zero).
    """
    if arch == "a64":
        return _a64(mnemonic, ops)
    if mnemonic.startswith("notrack "):  # the CET prefix is the DS override byte: objdump hides it
        ops = ops.replace("%ds:", "").replace("ds:", "")
    if syntax == "intel":
        return _x86_intel(mnemonic, ops, raw, arch == "x64", zero_disp, sib_no_index)
    return _x86_att(mnemonic, ops, raw, arch == "x64", zero_disp, sib_no_index)


def raw_matters(ops: str, raw: bytes) -> bool:
    """Whether `objdump_text` reads `raw` for capstone's `ops` (else its answer depends only on
    the other arguments, and can be remembered)."""
    return len(raw) <= 2 or "cs:" in ops or ops.startswith("$1,") or ops.endswith(", 1") or raw[0] == 0x67


def has_hidden_zero_disp(ops: str, syntax: str) -> bool:
    """Whether capstone's operand text shows a memory operand without displacement (the encoding
    may still hold a zero one: ask the decoder's details)."""
    if syntax == "intel":
        return "[" in ops and not _INTEL_DISP.search(ops) and "rip" not in ops
    return _ATT_NODISP.search(ops) is not None
