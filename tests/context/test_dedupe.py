from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pycline.context.dedupe import NOTE, ReadEdit, apply_edits, find_duplicate_reads
from pycline.messages import Message, TextContent
from pycline.prompts import responses

ENV = TextContent("<environment_details>\n# Current Mode\nACT MODE\n</environment_details>")
TASK = Message.user("<task>\nfix it\n</task>")


def call(tool: str, path: str) -> Message:
    return Message.assistant(f"<{tool}>\n<path>{path}</path>\n</{tool}>")


def read(path: str, content: str) -> Message:
    return Message("user", (TextContent(f"[read_file for '{path}'] Result:\n{content}"), ENV))


def wrote(path: str, content: str, tool: str = "write_to_file") -> Message:
    text = (
        f"[{tool} for '{path}'] Result:\nThe content was successfully saved to {path}.\n\n"
        f'<final_file_content path="{path}">\n{content}\n</final_file_content>\n\nNo problems.'
    )
    return Message("user", (TextContent(text), ENV))


def conversation(*results: Message) -> list[Message]:
    out = [TASK]
    for r in results:
        out += [call("read_file", "x"), r]
    return out


def sent(messages: list[Message], start: int = 2) -> list[Message]:
    return apply_edits(messages, find_duplicate_reads(messages, start).edits)


def test_earlier_read_is_replaced_and_the_latest_kept() -> None:
    history = conversation(read("a.py", "old body"), read("a.py", "new body"))
    out = sent(history)
    assert out[2].content[0] == TextContent(f"[read_file for 'a.py'] Result:\n{NOTE}")
    assert out[2].content[1] == ENV
    assert out[4] == history[4]
    assert out[:2] == history[:2]


def test_write_result_keeps_its_message_and_loses_only_the_content() -> None:
    history = conversation(wrote("a.py", "v1"), read("a.py", "v1 again"))
    text = sent(history)[2].text
    assert "The content was successfully saved to a.py." in text
    assert f'<final_file_content path="a.py">\n{NOTE}\n</final_file_content>' in text
    assert "No problems." in text


def test_only_the_duplicated_mention_is_replaced() -> None:
    mention = Message.user(
        "look at these\n\n"
        '<file_content path="a.py">\nA1\n</file_content>\n\n'
        '<file_content path="b.py">\nB1\n</file_content>'
    )
    history = [
        TASK,
        Message.assistant("ok"),
        mention,
        call("read_file", "a.py"),
        read("a.py", "A2"),
    ]
    out = sent(history)
    assert '<file_content path="a.py">\n' + NOTE in out[2].text
    assert "B1" in out[2].text
    assert out[4] == history[4]


def test_failed_or_denied_reads_do_not_replace_a_real_read() -> None:
    error = responses.tool_error("read_file", "File not found")
    history = conversation(
        read("a.py", "real"), read("a.py", error), read("a.py", responses.DENIED)
    )
    assert not find_duplicate_reads(history).updated


def test_shortened_paths_in_headers_are_never_matched() -> None:
    long = "a" * 100
    cut = long[:79] + "…"
    history = conversation(read(cut, "one"), read(cut, "two"))
    assert not find_duplicate_reads(history).updated


def test_dot_slash_paths_are_the_same_file() -> None:
    history = conversation(read("./src/a.py", "one"), read("src/a.py", "two"))
    assert find_duplicate_reads(history).message_indices == [2]


def test_messages_before_start_are_never_touched() -> None:
    task = Message.user('<task>\nsee\n</task>\n<file_content path="a.py">\nA0\n</file_content>')
    history = [task, Message.assistant("ok"), read("a.py", "A1")]
    assert not find_duplicate_reads(history, 2).updated
    assert find_duplicate_reads(history, 0).message_indices == [0]


def text_size(messages: list[Message]) -> int:
    return sum(len(c.text) for m in messages for c in m.content if isinstance(c, TextContent))


def test_saved_characters_match_the_change_in_size() -> None:
    history = conversation(read("a.py", "x" * 5000), read("b.py", "y"), read("a.py", "z" * 10))
    plan = find_duplicate_reads(history)
    out = apply_edits(history, plan.edits)
    assert plan.chars_saved == text_size(history) - text_size(out) == 5000 - len(NOTE)


def test_running_again_on_the_result_changes_nothing() -> None:
    history = conversation(read("a.py", "1"), read("a.py", "2"), read("a.py", "3"))
    out = sent(history)
    assert not find_duplicate_reads(out).updated


def test_edits_for_a_changed_block_are_skipped() -> None:
    history = conversation(read("a.py", "1"))
    stale = ReadEdit(2, 0, length=999, spans=((30, 31),))
    assert apply_edits(history, [stale]) == history


PATHS = st.sampled_from(["a.py", "b.py", "src/c.ts", "d.md"])
KINDS = st.sampled_from(["read", "write", "replace", "mention"])


@given(st.lists(st.tuples(PATHS, KINDS), min_size=1, max_size=25))
def test_the_latest_copy_of_every_file_survives(events: list[tuple[str, str]]) -> None:
    history = [TASK]
    for n, (path, kind) in enumerate(events):
        body = f"content {n} of {path}"
        if kind == "read":
            result = read(path, body)
        elif kind == "mention":
            result = Message.user(f'<file_content path="{path}">\n{body}\n</file_content>')
        else:
            result = wrote(path, body, "write_to_file" if kind == "write" else "replace_in_file")
        history += [call("read_file", path), result]
    out = sent(history)
    last = {path: n for n, (path, _) in enumerate(events)}
    for n, (path, _) in enumerate(events):
        text = out[2 + 2 * n].text
        if last[path] == n:
            assert f"content {n} of {path}" in text
        else:
            assert f"content {n} of {path}" not in text and NOTE in text
