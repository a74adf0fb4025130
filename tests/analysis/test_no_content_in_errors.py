"""Issue 22: an error about a file that is not a profile gives sizes and offsets, never values
decoded from its bytes (a workspace could name /etc/shadow or /proc/PID/environ as a profile; four
of its bytes came back as "header claims 2033271649 bytes")."""

from __future__ import annotations

import struct

import pytest

from gmonlens.common.errors import GmonlensError, reason
from gmonlens.profile.gmon import parse_gmon

SECRETS = [
    b"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
    b"PATH=/usr/bin\0HOME=/root\0AWS_SECRET=abcd\0" * 3,
    b"\xff" * 64,
    b"\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + b"\x01" * 40,
]


def _decoded_numbers(data: bytes) -> set[str]:
    """Every 2-, 4- and 8-byte integer of the file's first 64 bytes, as decimal and hex, in
    both byte orders (what a message quoting a header field would show), above 255."""
    out: set[str] = set()
    for size, code in ((2, "H"), (4, "I"), (8, "Q")):
        for at in range(min(len(data), 64) - size + 1):
            for e in "<>":
                v = struct.unpack_from(e + code, data, at)[0]
                if v > 255:
                    out |= {str(v), f"{v:x}"}
    return out


@pytest.mark.parametrize("data", SECRETS, ids=range(len(SECRETS)))
@pytest.mark.parametrize("layout", [(8, True), (4, True), (8, False)])
def test_errors_carry_no_decoded_values(data: bytes, layout: tuple[int, bool]) -> None:
    with pytest.raises(GmonlensError) as e:
        parse_gmon(data, path="secret", address_size=layout[0], little_endian=layout[1])
    words = set(str(e.value).replace("(", " ").replace(")", " ").replace("-", " ").split())
    leaked = {w.removeprefix("0x") for w in words} & _decoded_numbers(data)
    assert not leaked, str(e.value)


def test_reason_is_never_empty() -> None:
    assert reason(MemoryError()) == "out of memory"
    assert reason(ValueError()) == "ValueError"
    assert reason(GmonlensError("f", "bad")) == "bad"
