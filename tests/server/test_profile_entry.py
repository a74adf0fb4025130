"""The server's disk-cache entry of a computed profile (`gmonlens_ide.cache_entries`): every field
of the engine's Profile goes through the column codec and comes back equal, mappings included
(`indirect_children`, MIPS -c's `<indirect child>` lines); a wrong shape is refused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gmonlens.common.model import Profile
from gmonlens.load import diskcache
from gmonlens_ide.cache_entries import _decode_profile, _encode_profile
from golden_programs import CYCLES, engine_profile


@pytest.fixture
def profile() -> Profile:
    return engine_profile(CYCLES, CYCLES.variants[0])[0]


def test_every_field_round_trips(profile: Profile) -> None:
    assert _decode_profile(_encode_profile(profile)) == profile
    mips = replace(profile, indirect_children={0: 1, 2: 0})
    back = _decode_profile(_encode_profile(mips))
    assert back == mips and back.indirect_children == {0: 1, 2: 0}


@pytest.mark.parametrize("bad", [((0, "x"),), ((0, 1, 2),), ((99_999, 0),), ((0, -1),), {0: 1}])
def test_a_wrongly_shaped_mapping_is_refused(profile: Profile, bad: object) -> None:
    data = _encode_profile(profile)
    data["indirect_children"] = bad
    with pytest.raises(diskcache.ShapeError):
        _decode_profile(data)
