"""One finding of `pycline doctor`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

Status: TypeAlias = Literal["ok", "warn", "fail", "off"]


@dataclass(frozen=True, slots=True)
class Check:
    name: str  # "model", "sandbox", "language server: python", "mcp: files", …
    status: Status
    detail: str  # one line: what was found
    fix: str = ""  # one line: what to do about it (empty when nothing is to be done)
