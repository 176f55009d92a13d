"""Which legacy encoding a non-UTF-8 text file is in (cp1251, Shift-JIS, GB18030, Latin-1…).

Detection is charset-normalizer's; we add two rules of our own. An encoding is only accepted
if it gives back exactly the file's bytes when the text is encoded again, so saving an edit
never changes what the edit did not touch. And Western text, the most common legacy case, keeps
cp1252 when that reads as cleanly as the detector's pick: short Latin text looks the same in
several code pages and the detector's tie-break among them is arbitrary.
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

    matches = list(from_bytes(data))
    ordered = [m.encoding for m in matches]
    best_chaos = matches[0].chaos if matches else 1.0
    try:
        western = data.decode("cp1252")
    except UnicodeDecodeError:
        western = None
    if western is not None and mess_ratio(western, maximum_threshold=1.0) <= best_chaos + _TIE:
        ordered.insert(0, "cp1252")
    ordered.append(FALLBACK)
    return list(dict.fromkeys(ordered))


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
