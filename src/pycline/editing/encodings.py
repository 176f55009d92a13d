"""Which legacy encoding a non-UTF-8 text file is in (cp1251, Shift-JIS, GB18030, Latin-1…).

Detection is charset-normalizer's; we add two rules of our own. An encoding is only accepted
if it gives back exactly the file's bytes when the text is encoded again, so saving an edit
never changes what the edit did not touch. And Western text, the most common legacy case, keeps
cp1252 when that reads as cleanly as the detector's pick, unless another equally clean reading
makes more of its words out of letters: short Latin text looks alike in several code pages
and the detector's tie-break among them is arbitrary.
"""

from __future__ import annotations

# Any byte sequence decodes as Latin-1 and encodes back to itself: the last resort.
FALLBACK = "latin-1"
_TIE = 0.02  # mess ratios this close count as equally clean


def round_trips(data: bytes, encoding: str) -> str | None:
    """The text, when `encoding` decodes `data` and encodes it back byte for byte."""
    try:
        text = data.decode(encoding)
        return text if text.encode(encoding) == data else None
    except (UnicodeError, LookupError):
        return None


def candidates(data: bytes) -> list[str]:
    """Encodings to try for non-UTF-8 text, most likely first."""
    from charset_normalizer import from_bytes
    from charset_normalizer.md import mess_ratio

    entries = [(m.encoding, m.chaos, str(m)) for m in from_bytes(data)]
    best_chaos = min((chaos for _, chaos, _ in entries), default=1.0)
    try:
        western = data.decode("cp1252")
    except UnicodeDecodeError:
        pass
    else:
        chaos = mess_ratio(western, maximum_threshold=1.0)
        entries.insert(0, ("cp1252", chaos, western))
        best_chaos = min(best_chaos, chaos)
    # Among the equally clean readings, the one whose words are made of letters: Polish read
    # as cp1252 has `Modu³` and `s³ownik`, read as cp1250 `Moduł` and `słownik`.
    ranked = sorted(
        enumerate(entries),
        key=lambda item: (
            item[1][1] > best_chaos + _TIE,
            _odd_in_words(item[1][2]) if item[1][1] <= best_chaos + _TIE else 0,
            item[0],
        ),
    )
    ordered = [encoding for _, (encoding, _, _) in ranked]
    ordered.append(FALLBACK)
    return list(dict.fromkeys(ordered))


def _odd_in_words(text: str) -> int:
    """Non-ASCII characters that are not letters yet touch a letter."""
    odd = 0
    for i, char in enumerate(text):
        if char.isascii() or char.isalpha() or char.isspace():
            continue
        before = text[i - 1] if i else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        odd += before.isalpha() or after.isalpha()
    return odd


def detect(data: bytes) -> tuple[str, str]:
    """(text, encoding) for bytes that are not UTF-8; always succeeds (Latin-1 at worst)."""
    for encoding in candidates(data):
        text = round_trips(data, encoding)
        if text is not None:
            return text, encoding
    return data.decode(FALLBACK), FALLBACK


def detect_prefix(sample: bytes) -> str:
    """The encoding for the first bytes of a longer file (they may end inside a character)."""
    import codecs

    for encoding in candidates(sample):
        try:
            codecs.getincrementaldecoder(encoding)().decode(sample, final=False)
        except (UnicodeError, LookupError):
            continue
        return encoding
    return FALLBACK
