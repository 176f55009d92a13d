"""pycline in a real terminal (tmux) for tests that look at the screen, and pictures of it.

`Terminal` runs a command in a detached tmux session of a fixed size; `screen()` is what a user
sees (tmux's own rendering: wrapping, cursor moves and erasures applied). `save_png` turns the
coloured screen into an image with Debian's Chromium, for the README and the docs.
"""

from __future__ import annotations

import html
import re
import shlex
import subprocess
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

POLL = 0.1  # tmux tells nobody when the screen changes: it is looked at this often


class Terminal:
    def __init__(
        self,
        command: list[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        width: int = 100,
        height: int = 30,
    ) -> None:
        self.name = f"pycline-test-{uuid.uuid4().hex[:8]}"
        self.width, self.height = width, height
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        shell = f"cd {shlex.quote(str(cwd))} && exec env -i {exports} {shlex.join(command)}"
        self._tmux(
            "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height),
            "bash", "--norc", "-c", shell,
        )  # fmt: skip
        self._tmux("set-option", "-t", self.name, "remain-on-exit", "on")

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.name, *args], capture_output=True, text=True, timeout=30
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def screen(self, *, colours: bool = False) -> str:
        flags = ["-e"] if colours else []
        return self._tmux("capture-pane", "-p", "-t", self.name, *flags)

    def transcript(self) -> str:
        """Everything the pane printed, the lines scrolled out of view included (a pane can
        start smaller than asked for and grow once its first output has scrolled)."""
        return self._tmux("capture-pane", "-p", "-S", "-", "-t", self.name)

    def send(self, text: str, *, enter: bool = True) -> None:
        self._tmux("send-keys", "-t", self.name, "-l", text)
        if enter:
            self._tmux("send-keys", "-t", self.name, "Enter")

    def wait_for(self, pattern: str, timeout: float = 60.0) -> str:
        """The screen once `pattern` (a regular expression) shows on it."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if re.search(pattern, shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} never showed; the screen:\n{shown}")
            time.sleep(POLL)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.name, "kill-server"], capture_output=True, timeout=30)


# --- pictures ----------------------------------------------------------------------------------

_PALETTE = [
    "#1e1e1e", "#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#d0d0d0",
    "#5c6370", "#ff7b86", "#b5e890", "#ffd68a", "#82c4ff", "#dc9cf0", "#7fd3dd", "#ffffff",
]  # fmt: skip
_SGR = re.compile(r"\x1b\[([0-9;]*)m")


def _colour(n: int) -> str:
    if n < 16:
        return _PALETTE[n]
    if n < 232:
        n -= 16
        r, g, b = (n // 36) % 6, (n // 6) % 6, n % 6
        return "#" + "".join(f"{0 if c == 0 else 55 + c * 40:02x}" for c in (r, g, b))
    grey = 8 + (n - 232) * 10
    return f"#{grey:02x}{grey:02x}{grey:02x}"


def to_html(screen: str, *, title: str = "") -> str:
    """A coloured tmux capture as a page that looks like a terminal window."""
    state: dict[str, object] = {}
    out: list[str] = []
    for line in screen.rstrip("\n").split("\n"):
        pos = 0
        for match in _SGR.finditer(line):
            out.append(_span(line[pos : match.start()], state))
            _apply(match[1], state)
            pos = match.end()
        out.append(_span(line[pos:], state) + "\n")
    body = "".join(out)
    return f"""<!doctype html><meta charset="utf-8"><style>
body {{ margin: 0; background: #2b2b2b; padding: 16px; display: inline-block; }}
.win {{ background: #1e1e1e; border-radius: 8px; box-shadow: 0 4px 16px #0008; }}
.bar {{ height: 28px; color: #9a9a9a; font: 13px sans-serif; line-height: 28px; text-align: center;
        border-bottom: 1px solid #333; }}
pre {{ margin: 0; padding: 10px 14px; color: #d0d0d0;
       font: 14px/1.35 "DejaVu Sans Mono", "Liberation Mono", monospace; }}
</style><div class="win"><div class="bar">{html.escape(title)}</div><pre>{body}</pre></div>"""


def _apply(codes: str, state: dict[str, object]) -> None:
    parts = [int(p) for p in codes.split(";") if p] or [0]
    i = 0
    while i < len(parts):
        c = parts[i]
        if c == 0:
            state.clear()
        elif c in (1, 2, 3, 4, 7):
            state[{1: "bold", 2: "dim", 3: "italic", 4: "underline", 7: "reverse"}[c]] = True
        elif c in (22, 23, 24, 27):
            for key in {22: ("bold", "dim"), 23: ("italic",), 24: ("underline",), 27: ("reverse",)}[
                c
            ]:
                state.pop(key, None)
        elif 30 <= c <= 37 or 90 <= c <= 97:
            state["fg"] = _PALETTE[c - 30 if c < 90 else c - 90 + 8]
        elif 40 <= c <= 47 or 100 <= c <= 107:
            state["bg"] = _PALETTE[c - 40 if c < 100 else c - 100 + 8]
        elif c in (39, 49):
            state.pop("fg" if c == 39 else "bg", None)
        elif c in (38, 48) and i + 1 < len(parts):
            key = "fg" if c == 38 else "bg"
            if parts[i + 1] == 5 and i + 2 < len(parts):
                state[key] = _colour(parts[i + 2])
                i += 2
            elif parts[i + 1] == 2 and i + 4 < len(parts):
                state[key] = "#" + "".join(f"{v:02x}" for v in parts[i + 2 : i + 5])
                i += 4
        i += 1


def _span(text: str, state: dict[str, object]) -> str:
    if not text:
        return ""
    fg, bg = state.get("fg"), state.get("bg")
    if state.get("reverse"):
        fg, bg = bg or "#1e1e1e", fg or "#d0d0d0"
    css = []
    if fg:
        css.append(f"color:{fg}")
    if bg:
        css.append(f"background:{bg}")
    if state.get("bold"):
        css.append("font-weight:bold")
    if state.get("dim"):
        css.append("opacity:0.6")
    if state.get("italic"):
        css.append("font-style:italic")
    if state.get("underline"):
        css.append("text-decoration:underline")
    escaped = html.escape(text)
    return f'<span style="{";".join(css)}">{escaped}</span>' if css else escaped


async def save_png(page_html: str, path: Path, chromium: str) -> None:
    from playwright.async_api import async_playwright

    from pycline.browser.chromium import CHROMIUM_ARGS

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
        try:
            page = await browser.new_page(device_scale_factor=1)
            await page.set_content(page_html)
            await page.locator("body").screenshot(path=str(path))
        finally:
            await browser.close()
