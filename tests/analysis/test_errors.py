"""Every engine error is one line, whatever the file name or the file's bytes hold."""

from gmonlens.common.errors import GmonFormatError, GmonlensError


def test_error_text_is_one_line_whatever_it_quotes() -> None:
    e = GmonFormatError("dir\nname/gmon.out", "dimension unit changed ('sec\nonds' then 'x\r\u2028\x85\x00')")
    text = str(e)
    assert len(text.splitlines()) == 1
    assert text.startswith("dir\\nname/gmon.out: ")
    assert "sec\\nonds" in text


def test_plain_error_text_is_kept() -> None:
    assert str(GmonlensError("a.out", "no such file")) == "a.out: no such file"
    assert str(GmonlensError(None, "bad option")) == "bad option"
