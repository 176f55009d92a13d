from __future__ import annotations

import itertools
import json
import random

from pycline.context.budget import max_allowed
from pycline.context.dedupe import NOTE
from pycline.context.lighten import lighten
from pycline.context.manager import TRUNCATION_NOTICE, ContextManager, Prepared
from pycline.context.results import result_header
from pycline.context.tokens import estimate_message, estimate_messages, estimate_text
from pycline.messages import Message, TextContent

SYSTEM = "You are a coding agent. " * 200
TASK_TEXT = "<task>\nRefactor the parser and keep every test green\n</task>"
BUDGET_ONLY = 10**9  # a context limit the window's budget always caps
ENV = "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>"


def task_message() -> Message:
    return Message("user", (TextContent(TASK_TEXT), TextContent(ENV)), ts=0)


def turn(history: list[Message], path: str, size: int, *, body: str | None = None) -> None:
    """One tool round trip; ts is the message's index so tests can check adjacency."""
    n = len(history)
    history.append(
        Message.assistant(f"Reading.\n<read_file>\n<path>{path}</path>\n</read_file>", ts=n)
    )
    content = body if body is not None else f"# {path} at {n}\n" + "x = 1\n" * (size // 6)
    result = TextContent(f"[read_file for '{path}'] Result:\n{content}")
    history.append(Message("user", (result, TextContent(ENV)), ts=n + 1))


def reported_usage(prepared: Prepared, reply: Message) -> int:
    """What a provider counting with our estimator would report for the request and reply."""
    return estimate_text(SYSTEM) + estimate_messages(prepared.messages) + estimate_message(reply)


def assert_pairs_intact(sent: list[Message]) -> None:
    assert [m.role for m in sent] == ["user", "assistant"] * (len(sent) // 2) + (
        ["user"] if len(sent) % 2 else []
    )
    for a, b in itertools.pairwise(sent):
        if a.role == "assistant":
            assert b.ts == (a.ts or 0) + 1, "a tool call was separated from its result"
        if result_header(b) is not None:
            assert a.ts == (b.ts or 0) - 1, "a tool result lost its call"


def test_hundreds_of_turns_stay_under_budget_and_keep_the_task() -> None:
    rng = random.Random(7)
    window = 64_000
    budget = max_allowed(window)
    manager = ContextManager()
    history = [task_message()]
    last_total: int | None = None
    actions: set[str] = set()
    for _ in range(400):
        prepared = manager.prepare(
            history, window=window, last_total_tokens=last_total, system=SYSTEM
        )
        actions.add(prepared.action)
        sent = prepared.messages
        assert estimate_text(SYSTEM) + estimate_messages(sent) < budget
        assert sent[0] == history[0] and TASK_TEXT in sent[0].text
        assert_pairs_intact(sent)
        assert (prepared.notice is not None) == (manager.deleted_range is not None)
        latest: dict[str, int] = {}
        for i, m in enumerate(sent):
            header = result_header(m)
            if header is not None and header.arg is not None:
                latest[header.arg] = i
        for i in latest.values():
            if sent[i].content[-1].text.startswith(TRUNCATION_NOTICE):  # type: ignore[union-attr]
                continue  # the file's latest copy is the one the notice carries
            assert NOTE not in sent[i].content[0].text  # type: ignore[union-attr]
        turn(history, f"src/m{rng.randrange(30)}.py", rng.randrange(500, 6000))
        last_total = reported_usage(prepared, history[-2])
    assert "truncate" in actions
    assert len(history) == 801


def test_a_huge_new_result_is_trimmed_before_it_is_sent() -> None:
    # Cline only looks at the previous request's usage; we also count what was added since.
    window = 64_000
    manager = ContextManager()
    history = [task_message()]
    for i in range(20):
        turn(history, f"f{i}.py", 3000)
    first = manager.prepare(
        history, window=window, last_total_tokens=None, system=SYSTEM, context_limit=BUDGET_ONLY
    )
    assert first.action == "none"
    turn(history, "huge.py", 100_000)
    second = manager.prepare(
        history,
        window=window,
        last_total_tokens=reported_usage(first, history[-2]),
        system=SYSTEM,
        context_limit=BUDGET_ONLY,
    )
    assert second.action == "truncate"
    expected = estimate_text(SYSTEM) + estimate_messages(second.messages)
    assert expected < max_allowed(window)
    assert second.tokens == expected  # our own count of what is sent


def test_below_the_budget_nothing_is_cut_but_superseded_copies_are_notes() -> None:
    history = [task_message()]
    turn(history, "a.py", 100)
    turn(history, "a.py", 100)
    prepared = ContextManager().prepare(
        history, window=200_000, last_total_tokens=10_000, system=SYSTEM
    )
    assert prepared.action == "none" and not prepared.changed and prepared.notice is None
    assert prepared.messages == lighten(history)
    assert NOTE in prepared.messages[2].text and prepared.messages[4] == history[4]


def test_notice_sits_where_history_was_cut() -> None:
    history = [task_message()]
    for i in range(40):
        turn(history, f"f{i}.py", 2000)
    manager = ContextManager()
    prepared = manager.prepare(history, window=64_000, last_total_tokens=None, context_limit=10_000)
    assert prepared.action == "truncate" and prepared.notice == TRUNCATION_NOTICE
    assert manager.deleted_range is not None
    start, end = manager.deleted_range
    notice = prepared.messages[2].content[-1]
    assert isinstance(notice, TextContent) and notice.text.startswith(TRUNCATION_NOTICE)
    assert prepared.messages[3] == history[end + 1]
    assert len(prepared.messages) == len(history) - (end - start + 1)


def test_a_step_trims_to_half_the_limit_and_keeps_at_least_a_quarter() -> None:
    history = [task_message()]
    for i in range(100):
        turn(history, f"f{i}.py", 200)
    rest = len(history) - 3  # after the task, the first call and its result
    at_limit, far_over = ContextManager(), ContextManager()
    limit = estimate_messages(lighten(history)) * 9 // 10
    # Trimmed once to half the limit, not a little at every request near it (cache-stable).
    first = at_limit.prepare(history, window=200_000, last_total_tokens=None,
                             context_limit=limit)  # fmt: skip
    assert first.action == "truncate" and first.tokens <= limit // 2
    assert at_limit.deleted_range is not None
    assert len(history) - 1 - at_limit.deleted_range[1] >= rest // 4
    # Far over the budget: three quarters go at once, and more until the request fits.
    over = far_over.prepare(history, window=8_000, last_total_tokens=None,
                            context_limit=BUDGET_ONLY)  # fmt: skip
    assert over.action == "truncate" and over.tokens < max_allowed(8_000)
    assert far_over.deleted_range is not None and far_over.deleted_range[1] >= 3 + rest * 3 // 4 - 1


def test_state_round_trips_through_json_and_is_reapplied_on_resume() -> None:
    history = [task_message()]
    for i in range(60):
        turn(history, "shared.py" if i % 3 == 0 else f"f{i}.py", 1500)
    manager = ContextManager()
    before = manager.prepare(history, window=64_000, last_total_tokens=70_000)
    assert before.changed and manager.deleted_range is not None and manager.edits
    saved = json.loads(json.dumps(manager.to_json()))
    resumed = ContextManager.from_json(saved)
    assert resumed.to_json() == manager.to_json()
    again = resumed.prepare(history, window=64_000, last_total_tokens=1_000)
    assert again.messages == before.messages and not again.changed


def test_unreadable_state_starts_fresh() -> None:
    samples: list[object] = [
        None,
        [],
        {"version": 99},
        {"version": 1, "deleted_range": ["a", 3]},
        {"version": 1, "edits": [{"message": 1}]},
        {"0": {}},  # Cline's own context_history.json shape
    ]
    for data in samples:
        manager = ContextManager.from_json(data)
        assert manager.deleted_range is None and manager.edits == ()


def test_a_rewound_history_drops_state_that_no_longer_fits() -> None:
    history = [task_message()]
    for i in range(40):
        turn(history, f"f{i}.py", 2000)
    manager = ContextManager()
    manager.prepare(history, window=64_000, last_total_tokens=60_000)
    assert manager.deleted_range is not None
    rewound = history[:5]
    prepared = manager.prepare(rewound, window=64_000, last_total_tokens=None)
    assert prepared.changed and manager.deleted_range is None
    assert prepared.messages == lighten(rewound)


def test_aggressive_trims_three_quarters_until_nothing_is_left() -> None:
    history = [task_message()]
    for i in range(50):
        turn(history, f"f{i}.py", 500)
    manager = ContextManager()
    first = manager.aggressive(history)
    assert first.action == "truncate" and manager.deleted_range == (3, 74)
    assert_pairs_intact(first.messages)
    rounds = 1
    while manager.aggressive(history).action == "truncate":
        rounds += 1
        assert rounds < 20
    last = manager.aggressive(history)
    assert last.action == "none" and not last.changed
    assert last.messages[0] == history[0] and last.messages[-1] == history[-1]
    assert_pairs_intact(last.messages)


def test_condense_is_asked_at_the_threshold_without_trimming_below_budget() -> None:
    history = [task_message()]
    for i in range(10):
        turn(history, f"f{i}.py", 6000)
    manager = ContextManager()
    prepared = manager.prepare(
        history,
        window=30_000,
        last_total_tokens=None,
        auto_condense=0.5,
        context_limit=BUDGET_ONLY,
    )
    assert prepared.action == "condense" and prepared.messages == lighten(history)
    off = ContextManager().prepare(
        history, window=30_000, last_total_tokens=None, context_limit=BUDGET_ONLY
    )
    assert off.action == "none"


def test_condense_over_the_budget_also_trims_so_the_request_fits() -> None:
    history = [task_message()]
    for i in range(40):
        turn(history, f"f{i}.py", 3000)
    manager = ContextManager()
    prepared = manager.prepare(history, window=30_000, last_total_tokens=None, auto_condense=0.75)
    assert prepared.action == "condense" and manager.deleted_range is not None


def test_after_reset_the_old_usage_is_not_trusted() -> None:
    history = [task_message()]
    for i in range(40):
        turn(history, f"f{i}.py", 500)
    manager = ContextManager()
    manager.prepare(history, window=64_000, last_total_tokens=60_000)
    manager.reset()
    short = [task_message(), Message.assistant("summary", ts=1), Message.user("go", ts=2)]
    prepared = manager.prepare(short, window=64_000, last_total_tokens=60_000)
    assert prepared.action == "none" and prepared.messages == short
    assert manager.to_json() == {"version": 1, "deleted_range": None, "edits": []}


def test_dedupe_that_saves_enough_but_leaves_an_overflow_also_truncates() -> None:
    history = [task_message()]
    big = "print('same file')\n" * 4000
    for i in range(8):
        turn(history, "big.py" if i % 2 else f"f{i}.py", 0, body=big)
    manager = ContextManager()
    prepared = manager.prepare(history, window=64_000, last_total_tokens=300_000)
    assert prepared.action == "truncate" and manager.deleted_range is not None
    assert_pairs_intact(prepared.messages)


def test_with_condensing_on_the_summary_is_asked_for_at_the_limit() -> None:
    # The limit keeps history far below the window's threshold: condensing would never come.
    history = [task_message()]
    for i in range(10):
        turn(history, f"f{i}.py", 500)
    size = estimate_messages(lighten(history))
    on = ContextManager().prepare(
        history, window=200_000, last_total_tokens=None, auto_condense=0.75, context_limit=size // 2
    )
    assert on.action == "condense"
    below = ContextManager().prepare(
        history, window=200_000, last_total_tokens=None, auto_condense=0.75, context_limit=size * 2
    )
    assert below.action == "none"
