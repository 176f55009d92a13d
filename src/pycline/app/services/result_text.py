"""A tool's result as people read it: the text written for the model, minus what only the model
needs (the saved file quoted back to it) and with the user's own words shown as theirs.

The model's copy stays whole (the event carries it); a front end shows this one.
"""

from __future__ import annotations

import re

_SAVED = re.compile(
    r"The file as saved \(use this as the reference for further edits\):\s*"
    r'<final_file_content path="([^"]*)">.*?</final_file_content>',
    re.S,
)
_FINAL = re.compile(r'<final_file_content path="([^"]*)">.*?</final_file_content>', re.S)
_FEEDBACK = re.compile(
    r"(?:The user provided the following feedback:\s*)?<feedback>\s*(.*?)\s*</feedback>", re.S
)


def for_people(result: str) -> str:
    text = _SAVED.sub(lambda m: f"Saved {m.group(1)}.", result)
    text = _FINAL.sub(lambda m: f"(the saved {m.group(1)})", text)
    return _FEEDBACK.sub(lambda m: f"Your feedback: {m.group(1)}", text).strip()
