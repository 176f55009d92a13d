"""Text from outside made safe for the front ends: lone surrogates replaced (they can be neither
saved nor sent), and model text stripped of terminal control sequences before a terminal shows
it."""

from __future__ import annotations

from pycline.parsing.surrogates import clean, clean_json
from pycline.parsing.terminal_text import for_terminal, printable

__all__ = ["clean", "clean_json", "for_terminal", "printable"]
