"""DWARF line tables: address -> (source file, line). An I/O module (reads the ELF through pyelftools)."""

from __future__ import annotations

import os
from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True)
class LineTable:
    """Rows of all line programs, sorted by address. `lookup` gives the row covering an address.

    Files are paths as recorded in DWARF (directory joined, relative to the CU's comp_dir where the
    table gives a relative directory); lines are 1-based.
    """

    addresses: tuple[int, ...]
    rows: tuple[tuple[int, int], ...]  # (file id, line); file id -1 marks the end of a sequence
    files: tuple[str, ...]

    def lookup(self, address: int) -> tuple[str, int] | None:
        i = bisect_right(self.addresses, address) - 1
        if i < 0:
            return None
        fid, line = self.rows[i]
        if fid < 0:
            return None
        return self.files[fid], line

    @classmethod
    def empty(cls) -> LineTable:
        return cls((), (), ())

    @classmethod
    def from_elf(cls, path: str) -> LineTable:
        """Read every CU's line program; an ELF without `.debug_line` gives an empty table."""
        from elftools.elf.elffile import ELFFile

        with open(path, "rb") as fh:
            elf = ELFFile(fh)
            if not elf.has_dwarf_info() or elf.get_section_by_name(".debug_line") is None:
                return cls.empty()
            dwarf = elf.get_dwarf_info()
            files: list[str] = []
            file_ids: dict[str, int] = {}
            raw: list[tuple[int, int, int, int]] = []  # (address, order, file id, line)
            order = 0
            for cu in dwarf.iter_CUs():
                prog = dwarf.line_program_for_CU(cu)
                if prog is None:
                    continue
                top = cu.get_top_DIE()
                comp_dir = _attr_str(top.attributes.get("DW_AT_comp_dir"))
                names = _file_names(prog, comp_dir)
                base = 0 if prog.header.version >= 5 else 1
                ids: dict[int, int] = {}
                for entry in prog.get_entries():
                    st = entry.state
                    if st is None:
                        continue
                    if st.end_sequence:
                        raw.append((st.address, order, -1, 0))
                        order += 1
                        continue
                    fid = ids.get(st.file)
                    if fid is None:
                        idx = st.file - base
                        name = names[idx] if 0 <= idx < len(names) else "??"
                        fid = file_ids.get(name)
                        if fid is None:
                            fid = file_ids[name] = len(files)
                            files.append(name)
                        ids[st.file] = fid
                    raw.append((st.address, order, fid, st.line))
                    order += 1
        raw.sort()
        # keep the last row at each address (later rows at one address supersede earlier ones),
        # but an end-of-sequence never hides a row that starts at the same address
        addrs: list[int] = []
        rows: list[tuple[int, int]] = []
        for a, _, fid, line in raw:
            if addrs and addrs[-1] == a:
                if fid < 0:
                    continue
                rows[-1] = (fid, line)
                continue
            addrs.append(a)
            rows.append((fid, line))
        return cls(tuple(addrs), tuple(rows), tuple(files))


def _attr_str(attr: object) -> str:
    if attr is None:
        return ""
    value = getattr(attr, "value", b"")
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _file_names(prog: object, comp_dir: str) -> list[str]:
    header = prog.header  # type: ignore[attr-defined]
    dirs = [d.decode("utf-8", "replace") if isinstance(d, bytes) else str(d)
            for d in header["include_directory"]]
    version = header.version
    out = []
    for fe in header["file_entry"]:
        name = fe.name.decode("utf-8", "replace") if isinstance(fe.name, bytes) else str(fe.name)
        di = fe.dir_index
        if version >= 5:
            d = dirs[di] if 0 <= di < len(dirs) else ""
        else:
            d = comp_dir if di == 0 else (dirs[di - 1] if 0 < di <= len(dirs) else "")
        if d and not os.path.isabs(d) and comp_dir:
            d = os.path.join(comp_dir, d)
        out.append(os.path.normpath(os.path.join(d, name)) if d else name)
    return out
