"""Starts the gmonlens server bundled in this extension: bundled/libs first on sys.path, then
`gmonlens_cli` (the `gmonlens` command) with the arguments given (the extension passes `serve --stdio`,
`mcp --workspace FOLDER` for the MCP server, and `record --out DIR -- COMMAND...` in the terminal of
"gmonlens: Record a Profile").

Run with `python -I` so the person's PYTHONPATH and user site-packages cannot shadow the bundle.
Writes nothing to stdout (the protocol's channel); problems go to stderr, which the editor shows.

capstone (the disassembler: annotated disassembly, gprof's -c) has a compiled library, so only a
platform's package of the extension carries it, in bundled/native (capstone's wheel for that
platform, unpacked). When that library loads in this interpreter, bundled/native goes on sys.path
right after bundled/libs, ahead of any capstone the interpreter has: the listing's text is tuned to
the pinned capstone's spelling, as the other bundled packages are pinned. When it does not load
(an interpreter of another architecture, say) it stays off the path and the interpreter's own
capstone, if any, is used. LIBCAPSTONE_PATH is dropped when the bundled one is used, so its binding
loads the library next to it (and so do the helper processes, which inherit the environment).
A library for another architecture than the interpreter's (read from both files' ELF, Mach-O or PE
headers) is said to be so: glibc calls it "No such file or directory".
"""

import ctypes
import os
import platform
import runpy
import struct
import sys

MIN = (3, 10)

if sys.version_info < MIN:
    sys.stderr.write(
        "gmonlens: Python %d.%d at %s is too old; gmonlens needs >= %d.%d "
        "(set gmonlens.interpreter)\n" % (*sys.version_info[:2], sys.executable, *MIN)
    )
    sys.exit(2)

BUNDLED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bundled")
LIBS = os.path.join(BUNDLED, "libs")
NATIVE = os.path.join(BUNDLED, "native")
CAPSTONE_LIBRARY = {"darwin": "libcapstone.dylib", "win32": "capstone.dll", "cygwin": "capstone.dll"}


def bundled_capstone_loads():
    """Whether this package carries capstone and its library loads here (None: not carried;
    else True, or the reason it does not load). Loading by absolute path: no search, nothing
    from the working directory."""
    library = os.path.join(NATIVE, "capstone", "lib", CAPSTONE_LIBRARY.get(sys.platform, "libcapstone.so"))
    if not os.path.isdir(os.path.join(NATIVE, "capstone")):
        return None
    try:
        major = ctypes.CDLL(library).cs_version(None, None) >> 8
    except OSError as e:
        return other_architecture(library, sys.executable) or str(e) or type(e).__name__
    except AttributeError as e:
        return str(e) or type(e).__name__
    return True if major == 5 else "capstone %d, not 5" % major


ELF_MACHINES = {
    3: "i386",
    8: "MIPS",
    20: "PowerPC",
    21: "PowerPC64",
    22: "s390",
    40: "ARM",
    62: "x86-64",
    183: "AArch64",
    243: "RISC-V",
    258: "LoongArch",
}
MACHO_CPUS = {
    7: "i386",
    0x01000007: "x86-64",
    12: "ARM",
    0x0100000C: "AArch64",
    0x0200000C: "arm64_32",
    18: "PowerPC",
    0x01000012: "PowerPC64",
}
PE_MACHINES = {0x14C: "i386", 0x8664: "x86-64", 0xAA64: "AArch64", 0x1C4: "ARM", 0xA641: "ARM64EC"}
PLATFORM_MACHINES = {
    "x86_64": "x86-64",
    "amd64": "x86-64",
    "arm64": "AArch64",
    "aarch64": "AArch64",
    "i386": "i386",
    "i686": "i386",
    "x86": "i386",
}


def machines(path):
    """The architectures an executable or library is built for, from its ELF, Mach-O (thin or
    universal) or PE header: a set of names ("x86-64", "AArch64", "RISC-V 64-bit", ...), or None
    when the file is unreadable or none of those formats."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if (
        head[:4] == b"\x7fELF"
        and len(head) >= 20
        and head[4:5] in (b"\x01", b"\x02")
        and head[5:6] in (b"\x01", b"\x02")
    ):
        bits = 32 if head[4:5] == b"\x01" else 64
        (number,) = struct.unpack("<H" if head[5:6] == b"\x01" else ">H", head[18:20])
        if number in (3, 62, 183):  # i386, x86-64, AArch64: the class is part of the name
            return {ELF_MACHINES[number]}
        return {"%s %d-bit" % (ELF_MACHINES.get(number, "ELF machine %d" % number), bits)}
    for order in ("<", ">"):  # thin Mach-O, 32 or 64-bit, either byte order
        if len(head) >= 8 and struct.unpack(order + "I", head[:4])[0] in (0xFEEDFACE, 0xFEEDFACF):
            (cpu,) = struct.unpack(order + "i", head[4:8])
            return {MACHO_CPUS.get(cpu, "Mach-O cpu %d" % cpu)}
    if head[:4] in (b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf") and len(head) >= 8:  # universal
        (count,) = struct.unpack(">I", head[4:8])
        size = 20 if head[3:4] == b"\xbe" else 32
        if not 0 < count <= 32 or len(head) < 8 + count * size:  # a Java class file has the first magic too
            return None
        cpus = [struct.unpack(">i", head[8 + i * size : 12 + i * size])[0] for i in range(count)]
        return {MACHO_CPUS.get(cpu, "Mach-O cpu %d" % cpu) for cpu in cpus}
    if head[:2] == b"MZ" and len(head) >= 64:
        (pe,) = struct.unpack("<I", head[60:64])
        if pe + 6 <= len(head) and head[pe : pe + 4] == b"PE\x00\x00":
            (number,) = struct.unpack("<H", head[pe + 4 : pe + 6])
            return {PE_MACHINES.get(number, "PE machine 0x%x" % number)}
    return None


def other_architecture(library, interpreter):
    """Why `library` cannot load in `interpreter` when the two are built for different
    architectures (one line), else None (unknown, or an architecture in common). Of a universal
    interpreter, the slice running is the one platform.machine() names, when it has that one."""
    theirs, ours = machines(library), machines(interpreter)
    if not theirs or not ours:
        return None
    running = PLATFORM_MACHINES.get(platform.machine().lower())
    if len(ours) > 1 and running in ours:
        ours = {running}
    if theirs & ours:
        return None
    return "its library is for another architecture: %s is for %s, this Python for %s" % (
        os.path.basename(library),
        " and ".join(sorted(theirs)),
        " and ".join(sorted(ours)),
    )


def main():
    """Puts the bundle on sys.path and runs the server (the module docstring)."""
    if not os.path.isdir(LIBS):
        sys.stderr.write("gmonlens: the bundled libraries are missing (%s); reinstall the extension\n" % LIBS)
        sys.exit(2)
    sys.path.insert(0, LIBS)
    native = bundled_capstone_loads()
    if native is True:
        sys.path.insert(1, NATIVE)
        os.environ.pop("LIBCAPSTONE_PATH", None)
    elif native is not None:
        sys.stderr.write(
            "gmonlens: the bundled capstone does not load in %s (%s); using the interpreter's own, if any\n"
            % (sys.executable, native)
        )
    # The server starts its helpers isolated (`python -I`) and hands them its own sys.path (LIBS included).
    sys.argv = ["gmonlens", *sys.argv[1:]]
    runpy.run_module("gmonlens_cli", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
