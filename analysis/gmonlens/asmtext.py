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

_X86_PREFIXES = frozenset({0x66, 0x67, 0xF2, 0xF3, 0x2E, 0x36, 0x3E, 0x26, 0x64, 0x65, 0xF0})
# mnemonics whose last letter is a size suffix objdump drops when a register fixes the size
_SUFFIXED = re.compile(
    r"^(mov|add|sub|xor|and|or|cmp|test|lea|push|pop|inc|dec|neg|not|shl|shr|sar|sal|rol|ror|rcl|rcr|"
    r"imul|mul|div|idiv|adc|sbb|xchg|bt|bts|btr|btc|cmpxchg|xadd|bsf|bsr|shld|shrd|popcnt|lzcnt|"
    r"tzcnt|movabs|cmov[a-z]+|set[a-z]+)([bwlq])$"
)
_ALWAYS_BARE = {"callq": "call", "calll": "call", "retq": "ret", "retl": "ret", "leaveq": "leave"}
_ALWAYS_BARE |= {"leavel": "leave", "jmpq": "jmp", "jmpl": "jmp", "pushq": "push", "popq": "pop"}
_GPR = re.compile(r"%(?:[re]?[abcd]x|[abcd][lh]|[re]?[sd]il?|[re]?[sb]pl?|r\d+[dwb]?)\b")
_BRANCH = re.compile(r"^(j[a-z]+|call[lq]?|loop[a-z]*|jmp[lq]?|xbegin)$")
_HEX = re.compile(r"^0x[0-9a-f]+$")


def _hex(m: re.Match[str]) -> str:
    sign, digits = m.group(2), m.group(3)
    return f"{m.group(1)}{sign}{hex(int(digits))}"


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
    ops = ops.replace(", ", ",")
    if _BRANCH.match(mnemonic) and _HEX.match(ops):
        ops = ops[2:]
    else:
        ops = re.sub(r"(\$)(-?)(\d+)\b(?!x)", _hex, ops)
        ops = re.sub(r"(^|,|\*|:)(-?)(\d+)(?=\()", _hex, ops)
    ops = re.sub(r"\((%\w+)?,(%\w+)\)", r"(\1,\2,1)", ops)
    if sib_no_index:
        ops = re.sub(r"\((%\w+)\)", r"(\1,%s,1)" % ("%riz" if mode64 else "%eiz"), ops, count=1)
    if zero_disp:
        ops = re.sub(r"(^|,|\*|:)\(", r"\g<1>0x0(", ops, count=1)
    prefix = ""
    if ops.startswith("%cs:") and mnemonic.startswith("nop"):
        ops = ops[4:]
        extra = 0
        for b in raw:
            if b != 0x66:
                break
            extra += 1
        prefix = "data16 " * max(extra - 1, 0) + "cs "
    op = _opcode(raw, mode64)
    if op in (0xD0, 0xD1) and ops.startswith("$0x1,"):
        ops = ops[5:]
    bare = _ALWAYS_BARE.get(mnemonic)
    if bare is not None and (mode64 or mnemonic[:-1] not in ("push", "pop")):
        mnemonic = bare
    elif mnemonic in ("pushl", "popl") and not mode64 and (_GPR.search(ops) or ops.startswith("$")):
        mnemonic = mnemonic[:-1]
    else:
        m = _SUFFIXED.match(mnemonic)
        outside = re.sub(r"\([^)]*\)", "", ops)
        regs = [r for r in _GPR.findall(outside) if not (r == "%cl" and m and m.group(1)[:2] in "shsarorc")]
        if m and regs:
            mnemonic = m.group(1)
    return f"{prefix}{mnemonic} {ops}".rstrip()


def _x86_intel(mnemonic: str, ops: str, raw: bytes, mode64: bool, zero_disp: bool, sib_no_index: bool) -> str:
    if raw == b"\x66\x90":
        return "xchg ax,ax"
    if _BRANCH.match(mnemonic) and _HEX.match(ops):
        return f"{mnemonic} {ops[2:]}"
    ops = ops.replace(", ", ",").replace(" + ", "+").replace(" - ", "-")
    ops = re.sub(r"\b(byte|word|dword|qword|tbyte|xmmword|ymmword|zmmword|xword) ptr\b", _upper_ptr, ops)
    ops = re.sub(r"\[(\w+)\+([a-z]\w*)(?=[\]+-])", r"[\1+\2*1", ops)
    one = _opcode(raw, mode64) in (0xD0, 0xD1) and ops.endswith(",1")
    ops = re.sub(r"(^|,|\[|\+|-|\*)(-?)(\d+)\b(?!x)", _intel_num, ops)
    if one:
        ops = ops[:-3] + "1"
    if mode64 and "[rip-0x" in ops:  # objdump: a negative rip offset as its 64-bit two's complement
        ops = re.sub(
            r"\[rip-0x([0-9a-f]+)\]", lambda m: "[rip+%s]" % hex(-int(m.group(1), 16) & (2**64 - 1)), ops
        )
    if sib_no_index:
        ops = re.sub(r"\[(\w+)", r"[\1+%s*1" % ("riz" if mode64 else "eiz"), ops, count=1)
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
    return f"{prefix}{mnemonic} {ops}".rstrip()


def _upper_ptr(m: re.Match[str]) -> str:
    return m.group(1).upper() + " PTR"


def _intel_num(m: re.Match[str]) -> str:
    if m.group(1) == "*":  # a scale
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{hex(int(m.group(3)))}"


_A64_BRANCH = re.compile(r"^(b|bl|b\.\w+|cbn?z|tbn?z|adrp?)$")
_A64_COND = {"b.lo": "b.cc", "b.hs": "b.cs"}
_A64_SHIFTS = frozenset({"lsl", "lsr", "asr", "ror"})
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
    # immediates in hex; then memory offsets, shift amounts and shift counts in decimal
    ops = re.sub(r"(^|, )#(-?)(\d+)\b(?!x)", _hexa, ops)
    ops = re.sub(r"(\[[^\]]*, )#(-?(?:0x[0-9a-f]+|\d+))", _dec, ops)
    ops = re.sub(r"(\], )#(-?(?:0x[0-9a-f]+|\d+))", _dec, ops)
    ops = re.sub(r"((?:lsl|lsr|asr|ror|msl) )#(0x[0-9a-f]+|\d+)", _dec, ops)
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
    if syntax == "intel":
        return _x86_intel(mnemonic, ops, raw, arch == "x64", zero_disp, sib_no_index)
    return _x86_att(mnemonic, ops, raw, arch == "x64", zero_disp, sib_no_index)


def has_hidden_zero_disp(ops: str, syntax: str) -> bool:
    """Whether capstone's operand text shows a memory operand without displacement (the encoding
    may still hold a zero one: ask the decoder's details)."""
    if syntax == "intel":
        return "[" in ops and not re.search(r"[+-] ?(0x[0-9a-f]+|\d+)\]", ops) and "rip" not in ops
    return re.search(r"(^|, |\*|:)\(", ops) is not None
