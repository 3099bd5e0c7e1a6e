"""Text in and out: users' files read as UTF-8 with errors that name the file and the line,
and any stored string made printable (a lone surrogate shown as its escape)."""

from __future__ import annotations

from pathlib import Path


def read_text(path: Path) -> str:
    """The file's text as UTF-8; ValueError naming the file (and the line of a bad byte)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from exc
    return decode_text(data, str(path))


def decode_text(data: bytes, name: str) -> str:
    """``data`` as UTF-8 (a BOM dropped); ValueError naming ``name`` and the line of a bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(
            f"{name}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save it as UTF-8"
        ) from None


def printable(text: str) -> str:
    """``text`` with every character UTF-8 cannot encode (a lone surrogate) written as its
    backslash escape, so a terminal, a pipe or a file can take it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
