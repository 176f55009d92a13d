"""`pycline --help` is the one place that lists every command, each with what it does."""

from __future__ import annotations

import re
from pathlib import Path

from pycline.cli.main import COMMANDS
from tests.cli.task_cli import pycline


def test_help_lists_every_command_with_what_it_does_in_one_place(
    isolated_home: Path, tmp_path: Path
) -> None:
    proc = pycline("--help", home=isolated_home, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    block = text[text.index("commands:") :].split("\n\n")[0].splitlines()[1:]
    listed = {m.group(1): m.group(2) for line in block if (m := re.match(r"  (\w+) +(\S.*)", line))}
    assert list(listed) == list(COMMANDS)
    assert all(len(summary) > 10 for summary in listed.values())
    assert "before or after" in text  # where the options of every command go
