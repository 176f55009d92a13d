"""A sample of bench/fuzz.py in CI: generated malformed replies (XML and native, OpenAI and
Anthropic wire formats, raw SSE oddities, HTTP errors) through `pycline run` and the real SDKs:
no traceback, no hang, every history loads."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import fuzz


def test_a_sample_of_the_fuzz_bench_finds_no_traceback_hang_or_unloadable_history() -> None:
    # Four tasks: OpenAI and Anthropic, each in native and XML mode.
    outcomes = fuzz.run(replies=100, per_task=25, jobs=1, seed=3)
    assert {(o.wire, o.native) for o in outcomes} == {
        ("openai", True), ("openai", False), ("anthropic", True), ("anthropic", False)
    }  # fmt: skip
    assert [o.traceback for o in outcomes if o.traceback] == []
    assert [o.seed for o in outcomes if o.hang] == []
    assert [o.unloadable for o in outcomes if o.unloadable] == []
    assert sum(o.served for o in outcomes) == 100  # every generated reply was read
