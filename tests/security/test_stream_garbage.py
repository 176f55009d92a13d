"""Native tool calls and provider streams a broken proxy or a half-compatible server sends:
`pycline run` against a loopback server speaking each wire format, with the real SDKs. Every
case ends as a tool error the model reads or a provider error the user reads (and a retry), the
task completes and its history loads; never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.task_cli import pycline
from tests.fakes import raw_streams as raw
from tests.fakes.raw_streams import RawFake, Wire

DEEP = "[" * 100_000 + "]" * 100_000

# (label, reply) pairs of native calls the model sees an error for, or that run with their lone
# surrogates replaced.
NATIVE_CASES: list[tuple[str, Any, Any, dict[str, Any]]] = [
    ("surrogate in arguments", "write_to_file",
     json.dumps({"path": "s.txt", "content": "x\ud83dy"}), {}),
    ("surrogate in call id", "list_files", json.dumps({"path": "."}), {"id": "call_\ud83d"}),
    ("surrogate in tool name", "list_\udc80files", json.dumps({"path": "."}), {}),
    ("arguments nested 100k deep", "write_to_file", '{"path": "d.txt", "content": ' + DEEP + "}",
     {}),
    ("arguments a number", "list_files", 5, {}),
    ("arguments not JSON", "list_files", '{"path": ', {}),
]  # fmt: skip

# Replies whose stream itself cannot be read.
GARBAGE: dict[Wire, list[tuple[str, bytes]]] = {
    "openai": [
        ("data line not JSON", raw.openai_start() + raw.data_line("{not json") + raw.openai_end()),
        ("content a number", raw.reply("openai", raw.openai_text(5))),
        ("content a list", raw.reply("openai", raw.openai_text([1, 2]))),
        ("data line nested 100k deep", raw.openai_start() + raw.data_line(DEEP)),
        ("call index text", raw.call("openai", "list_files", "{}", index="x")),
    ],
    "anthropic": [
        ("data line not JSON", raw.anthropic_start()
         + raw.data_line("{not json", event="content_block_delta") + raw.anthropic_end()),
        ("text a number", raw.reply("anthropic", raw.anthropic_text(5))),
        ("data line a number", raw.anthropic_start()
         + raw.data_line("5", event="content_block_delta") + raw.anthropic_end()),
        ("data line nested 100k deep", raw.anthropic_start()
         + raw.data_line(DEEP, event="content_block_delta")),
    ],
    "gemini": [
        ("data line not JSON", raw.data_line("{not json") + raw.gemini_end()),
        ("text a number", raw.reply("gemini", raw.gemini_text(5))),
        ("data line nested 100k deep", raw.data_line(DEEP)),
    ],
}  # fmt: skip

MODEL = {"openai": "gpt-5", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-pro"}


def _settings(home: Path) -> None:
    folder = home / "settings"
    folder.mkdir(parents=True, exist_ok=True)
    settings = {"toolCallFormat": "native", "retryBaseDelay": 0, "maxRetries": 20,
                "maxConsecutiveMistakes": 50}  # fmt: skip
    (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def _native(wire: Wire) -> list[bytes]:
    harmless = raw.call(wire, "list_files", json.dumps({"path": "."}), id="call_ok")
    # Gemini sends arguments as a JSON object its SDK checks: only the surrogate cases apply
    # (deep nesting is a garbage case there).
    cases = NATIVE_CASES[:3] if wire == "gemini" else NATIVE_CASES
    out: list[bytes] = []
    for _, name, arguments, ids in cases:
        out += [raw.call(wire, name, arguments, **ids), harmless]
    return out


def _run(home: Path, workspace: Path, wire: Wire, url: str, *extra: str) -> Any:
    return pycline(
        "run", "--provider", wire, "--base-url", url, "--api-key", "k", "--model", MODEL[wire],
        "--yes", *extra, "look around", home=home, cwd=workspace,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("wire", "json_mode"),
    [("openai", False), ("openai", True), ("anthropic", False), ("gemini", True)],
)
def test_broken_native_calls_and_streams_end_as_errors_not_tracebacks(
    isolated_home: Path, workspace: Path, wire: Wire, json_mode: bool
) -> None:
    _settings(isolated_home)
    garbage = GARBAGE[wire]
    replies = [*_native(wire), *(r for _, r in garbage), raw.completion(wire)]
    base = {"openai": "/v1", "anthropic": "", "gemini": ""}[wire]
    with RawFake(replies) as server:
        proc = _run(isolated_home, workspace, wire, server.origin + base,
                    *(["--json"] if json_mode else []))  # fmt: skip
        requests = server.model_requests
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert len(requests) == len(replies)
    # Each garbage reply was a provider error the user was told about (repeats are shown once),
    # then retried: every planned reply was asked for.
    assert "sent a reply pycline cannot read" in proc.stdout + proc.stderr
    # The history loads, is valid UTF-8 JSON, and told the model what was wrong with its calls.
    folder = next((isolated_home / "tasks").iterdir())
    history = json.loads((folder / "api_conversation_history.json").read_bytes().decode())
    text = json.dumps(history, ensure_ascii=False)
    assert "\\ud8" not in text and "\\udc" not in text  # no lone surrogate kept, even escaped
    if wire != "gemini":
        assert "nested more than 64 levels deep" in text
        assert "were not a JSON object" in text
    assert "Unknown tool 'list_\ufffdfiles'" in text
    assert "call_\ufffd" in text
    # Non-Claude models' edits lose U+FFFD (SPEC §3); Claude's keep it.
    assert (workspace / "s.txt").read_text(encoding="utf-8") in ("xy\n", "x\ufffdy\n")
    json.loads((folder / "ui_messages.json").read_bytes().decode())


def test_a_task_given_as_words_that_are_not_utf8_runs(isolated_home: Path, workspace: Path) -> None:
    """Arguments that are not UTF-8 arrive as lone surrogates (Python's surrogateescape)."""
    script = isolated_home / "script.json"
    script.write_text(
        json.dumps(["<attempt_completion>\n<result>ok</result>\n</attempt_completion>"]),
        encoding="utf-8",
    )
    proc = pycline(
        "run", "--provider", "scripted", "--script", str(script), "--yes", "task \udcff here",
        home=isolated_home, cwd=workspace,
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 0
    folder = next((isolated_home / "tasks").iterdir())
    history = json.loads((folder / "api_conversation_history.json").read_bytes().decode())
    assert "task \ufffd here" in json.dumps(history, ensure_ascii=False)
