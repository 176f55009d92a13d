from __future__ import annotations

from pycline.context.dedupe import NOTE
from pycline.context.lighten import RECENT_TURNS, RERUN_NOTE, lighten, old_output_note
from pycline.messages import Message, TextContent, ToolUseContent

TASK = Message("user", (TextContent("<task>\nfix it\n</task>"), TextContent(
    "<environment_details>\n# Current Working Directory (/p) Files\na.py\n</environment_details>"
)))  # fmt: skip


def env(extra: str = "") -> TextContent:
    return TextContent(
        f"<environment_details>\n{extra}# Current Time\n2026-01-01 10:00\n\n# Current Mode\n"
        "ACT MODE\n</environment_details>"
    )


def native_turn(i: int, name: str, params: dict[str, str], result: str) -> list[Message]:
    call = ToolUseContent(f"call_{i}", name, tuple(params.items()))
    arg = params.get("path") or params.get("command") or params.get("regex")
    header = f"[{name} for '{arg}'] Result:\n"
    return [
        Message("assistant", (TextContent("Working."), call)),
        Message("user", (TextContent(header + result, f"call_{i}"), env())),
    ]


def xml_turn(name: str, params: dict[str, str], result: str) -> list[Message]:
    body = "".join(f"<{k}>{v}</{k}>\n" for k, v in params.items())
    arg = params.get("path") or params.get("command") or params.get("regex")
    return [
        Message.assistant(f"Working.\n<{name}>\n{body}</{name}>"),
        Message("user", (TextContent(f"[{name} for '{arg}'] Result:\n{result}"), env())),
    ]


def test_a_re_read_file_leaves_a_note_where_the_older_copy_was_and_the_latest_intact() -> None:
    old, new = "x = 1\n" * 200, "x = 2\n" * 200
    history = [
        TASK,
        *native_turn(1, "read_file", {"path": "a.py"}, old),
        *native_turn(2, "read_file", {"path": "a.py"}, new),
    ]
    sent = lighten(history)
    assert NOTE in sent[2].text and old not in sent[2].text
    assert new in sent[4].text and NOTE not in sent[4].text


def test_a_command_run_again_keeps_the_start_and_end_of_its_earlier_output() -> None:
    for turn in (
        lambda i, out: native_turn(i, "execute_command", {"command": "git pull"}, out),
        lambda i, out: xml_turn("execute_command", {"command": "git pull"}, out),
    ):
        first = "Updating 1..2\n" + "".join(f" file{i}.py | 2 +-\n" for i in range(200))
        first += "CONFLICT (content): Merge conflict in a.py\n"
        second = "Already up to date.\n" + "ok\n" * 300
        history = [TASK, *turn(1, first), *turn(2, second), *turn(3, "Already up to date.\n")]
        sent = lighten(history)
        earlier = sent[2].text
        assert earlier.startswith("[execute_command for 'git pull'] Result:\nUpdating 1..2\n")
        assert "Merge conflict in a.py" in earlier and "file100.py" not in earlier
        assert "the command ran again later" in earlier and RERUN_NOTE not in earlier
        assert sent[4].text.startswith("[execute_command for 'git pull'] Result:\nAlready")
        assert sent[6] == history[6]  # the latest run is whole
        short = [TASK, *turn(1, "3 failed\n"), *turn(2, "all passed\n")]
        assert lighten(short)[2].content[0] == short[2].content[0]  # short: kept as it is


def test_different_calls_keep_their_output_and_the_checklist_does_not_make_calls_differ() -> None:
    out = "match\n" * 100
    history = [
        TASK,
        *native_turn(1, "search_files", {"path": "src", "regex": "foo"}, out),
        *native_turn(2, "search_files", {"path": "lib", "regex": "foo"}, out),
        *native_turn(3, "search_files", {"path": "lib", "regex": "foo", "task_progress": "- [x]"}, out),
    ]  # fmt: skip
    sent = lighten(history)
    assert out in sent[2].text  # another folder: not the same search
    assert RERUN_NOTE in sent[4].text and out in sent[6].text


def test_edits_and_reads_are_not_treated_as_reruns() -> None:
    out = "content\n" * 100
    history = [
        TASK,
        *native_turn(1, "write_to_file", {"path": "a.py", "content": "x"}, out),
        *native_turn(2, "write_to_file", {"path": "a.py", "content": "x"}, out),
    ]
    assert lighten(history)[2].text.count("content\n") == 100


def test_environment_details_stay_in_the_first_and_latest_message_and_when_they_bring_news() -> (
    None
):
    news = "# Recently Modified Files\nb.py\n\n"
    history = [TASK]
    for i, extra in enumerate(("", news, "", "")):
        history += native_turn(i, "read_file", {"path": f"f{i}.py"}, "x\n")
        history[-1] = Message("user", (history[-1].content[0], env(extra)))
    sent = lighten(history)
    assert sent[0] == TASK
    assert ["<environment_details>" in m.text for m in sent[2::2]] == [False, True, False, True]
    assert "Recently Modified Files" in sent[4].text
    assert all(m.content for m in sent)


def test_the_task_message_is_never_changed() -> None:
    task = Message("user", (TextContent("<task>\nrun pytest\n</task>"), env()))
    history = [task, *xml_turn("execute_command", {"command": "pytest"}, "ok\n" * 100)]
    history += xml_turn("execute_command", {"command": "pytest"}, "ok\n" * 100)
    assert lighten(history)[0] == task


def test_an_output_older_than_the_recent_turns_keeps_its_first_and_last_lines() -> None:
    lines = [f"src/m{i}.py:3: def handler_{i}()" for i in range(60)]
    history = [
        TASK,
        *native_turn(0, "search_files", {"path": ".", "regex": "handler"}, "\n".join(lines)),
    ]
    for i in range(1, RECENT_TURNS + 1):
        history += native_turn(i, "read_file", {"path": f"f{i}.py"}, "x\n")
    recent = native_turn(99, "execute_command", {"command": "make"}, "built\n" * 300)
    sent = lighten([*history, *recent])
    old = sent[2].text
    assert old.startswith("[search_files for '.'] Result:\n" + "\n".join(lines[:4]))
    assert old.endswith("\n".join(lines[-8:]))  # an error is printed at the end
    removed = len("\n".join(lines)) - len("\n".join(lines[:4])) - len("\n".join(lines[-8:]))
    assert lines[4] not in old and lines[-9] not in old
    assert old_output_note(removed, RECENT_TURNS + 1) in old
    assert sent[-1] == recent[-1]  # the latest output is whole


def test_short_old_outputs_are_left_alone() -> None:
    history = [TASK, *native_turn(0, "execute_command", {"command": "ls"}, "a.py\nb.py\n")]
    for i in range(1, 2 * RECENT_TURNS):
        history += native_turn(i, "read_file", {"path": f"f{i}.py"}, "x\n")
    assert lighten(history)[2].content[0] == history[2].content[0]
