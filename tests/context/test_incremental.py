from __future__ import annotations

import random

from pycline.context.dedupe import NOTE, ReadEdit
from pycline.context.incremental import LightView
from pycline.context.lighten import RERUN_NOTE, lighten
from pycline.context.manager import ContextManager
from pycline.messages import ImageContent, Message, TextContent, ToolUseContent

TASK = Message("user", (TextContent("<task>\nfix it\n</task>"), TextContent(
    "<environment_details>\n# Current Working Directory (/p) Files\na.py\n</environment_details>"
)))  # fmt: skip
FILES = [f"src/m{i}.py" for i in range(9)]
COMMANDS = ["pytest", "ls -la", "git status", "make"]


def env(turn: int, news: bool) -> TextContent:
    extra = "# Recently Modified Files\nsrc/m1.py\n\n" if news else ""
    return TextContent(
        f"<environment_details>\n{extra}# Current Time\n2026-01-01 10:{turn % 60:02d}\n\n"
        "# Current Mode\nACT MODE\n</environment_details>"
    )


def scripted_history(turns: int, seed: int) -> list[Message]:
    """A long task: re-reads, edits echoing files, repeated and unique commands with long and
    short outputs, searches, mentions, the user's words, images, reminders, XML and native calls."""
    rng = random.Random(seed)
    history = [TASK]
    for turn in range(1, turns + 1):
        kind = rng.choice(["read", "read", "write", "run", "run", "search", "list", "say"])
        path, command = rng.choice(FILES), rng.choice(COMMANDS)
        lines = rng.choice([3, 40, 200])
        out = "".join(f"output {turn} line {n}\n" for n in range(lines))
        match kind:
            case "read":
                name, params, body = "read_file", {"path": path}, f"v{turn}\n" * lines
            case "write":
                body = f'<final_file_content path="{path}">\nv{turn}\n</final_file_content>\n'
                name, params = "write_to_file", {"path": path, "content": f"v{turn}"}
            case "run":
                name, params, body = "execute_command", {"command": command}, out
            case "search":
                name, params, body = "search_files", {"path": ".", "regex": "x"}, out
            case "list":
                name, params, body = "list_files", {"path": rng.choice(["src", "."])}, out
            case _:
                name, params = "ask_followup_question", {"question": "ok?"}
                body = (
                    f'<answer>see <file_content path="{path}">\nm{turn}\n</file_content></answer>'
                )
        arg = params.get("path") if name != "execute_command" else command
        result = f"[{name} for '{arg}'] Result:\n{body}"
        extra: list[TextContent | ImageContent] = [env(turn, rng.random() < 0.1)]
        if rng.random() < 0.2:
            extra.append(TextContent(f"# Task progress\n- [x] step {turn}"))
        if rng.random() < 0.05:
            extra.append(ImageContent("image/png", "iVBORw0KGgo="))
        if rng.random() < 0.5:
            call = ToolUseContent(f"call_{turn}", name, tuple(params.items()))
            history.append(Message("assistant", (TextContent("Working."), call)))
            words = [TextContent("and check the docs")] if rng.random() < 0.05 else []
            history.append(Message("user", (TextContent(result, f"call_{turn}"), *words, *extra)))
        else:
            xml = "".join(f"<{k}>{v}</{k}>\n" for k, v in params.items())
            history.append(Message.assistant(f"Working.\n<{name}>\n{xml}</{name}>"))
            history.append(Message("user", (TextContent(result), *extra)))
    return history


def test_the_view_kept_up_to_date_equals_lighten_of_the_whole_history_at_every_request() -> None:
    history = scripted_history(300, seed=13)
    view = LightView()
    saw_notes: set[str] = set()
    for n in range(1, len(history) + 1):
        sent = view.update(history[:n])
        assert sent == lighten(history[:n]), f"request with {n} messages"
        saw_notes.update(note for note in (NOTE, RERUN_NOTE, "earlier step") if note in str(sent))
    assert saw_notes == {NOTE, RERUN_NOTE, "earlier step"}  # every rule had work to do
    resumed = LightView().update(history)
    assert resumed == lighten(history)


def test_a_view_asked_twice_for_the_same_history_sends_the_same_messages() -> None:
    history = scripted_history(60, seed=2)
    view = LightView()
    first = view.update(history)
    assert view.update(history) == first == lighten(history)
    assert view.update(list(history)) == first


def test_a_rewritten_history_is_viewed_from_scratch() -> None:
    history = scripted_history(120, seed=5)
    other = scripted_history(120, seed=6)
    view = LightView()
    for n in range(1, 200, 7):
        view.update(history[:n])
    rewound = history[:81]
    assert view.update(rewound) == lighten(rewound)
    for n in range(82, 160, 3):  # growing again, on a different path
        grown = [*rewound, *other[81:n]]
        assert view.update(grown) == lighten(grown)
    replaced = [TASK, *other[40:90]]  # a condensed history: a new list, same length or not
    assert view.update(replaced) == lighten(replaced)


def test_an_environment_block_holding_a_file_copy_is_still_viewed_as_lighten_does() -> None:
    copy = '<environment_details>\n<file_content path="a.py">\nx\n</file_content>\n'
    history = [
        TASK,
        Message.assistant("Reading.\n<read_file>\n<path>a.py</path>\n</read_file>"),
        Message("user", (TextContent("[read_file for 'a.py'] Result:\nold"), TextContent(copy))),
        Message.assistant("Again.\n<read_file>\n<path>b.py</path>\n</read_file>"),
        Message("user", (TextContent("[read_file for 'b.py'] Result:\nnew"), env(3, False))),
    ]
    view = LightView()
    for n in range(1, len(history) + 1):
        assert view.update(history[:n]) == lighten(history[:n])
    grown = [*history, *scripted_history(30, seed=1)[1:]]
    assert view.update(grown) == lighten(grown)


def test_a_manager_with_a_gap_sends_what_a_resumed_manager_sends_at_every_request() -> None:
    history = scripted_history(150, seed=9)
    edit_target = next(i for i, m in enumerate(history) if i > 60 and m.role == "user")
    block = history[edit_target].content[0]
    assert isinstance(block, TextContent)
    edits = (ReadEdit(edit_target, 0, len(block.text), ((len(block.text) - 2, len(block.text)),)),)
    running = ContextManager(deleted_range=(3, 40), edits=edits)
    for n in range(60, len(history) + 1, 2):
        resumed = ContextManager(deleted_range=(3, 40), edits=edits)
        assert running.render(history[:n]) == resumed.render(history[:n])
