"""Clean-up of write_to_file content, and the warning for content that looks truncated."""

from __future__ import annotations

from pycline.editing.cleanup import (
    clean_write_content,
    model_text,
    omission_placeholders,
    strip_fences,
    truncation_warning,
    unescape_html,
)


def test_wrapping_code_fence_is_removed() -> None:
    assert strip_fences("```python\nx = 1\n```", "a.py") == "x = 1"


def test_lone_leading_or_trailing_fence_is_removed_in_code() -> None:
    assert strip_fences("```\nx = 1", "a.py") == "x = 1"
    assert strip_fences("x = 1\n```", "a.py") == "x = 1"


def test_markdown_keeps_fences_that_are_content() -> None:
    doc = "```bash\nmake\n```\n\nText\n\n```\nmore\n```"
    assert strip_fences(doc, "README.md") == doc


def test_markdown_wrapped_whole_in_one_fence_is_unwrapped() -> None:
    assert strip_fences("```markdown\n# Title\n\nBody\n```", "notes.md") == "# Title\n\nBody"


def test_html_entities_are_unescaped_once_for_non_claude_models() -> None:
    assert unescape_html("a &lt; b &amp;&amp; c &gt; d &quot;x&quot; &apos;y&apos;") == (
        "a < b && c > d \"x\" 'y'"
    )
    assert unescape_html("&amp;lt;") == "&lt;"
    assert model_text("if a &gt; b:", "a.py", "gpt") == "if a > b:"


def test_claude_content_is_verbatim() -> None:
    assert model_text("a &gt; b \ufffd", "a.py", "claude") == "a &gt; b \ufffd"


def test_xml_files_keep_their_entities() -> None:
    assert model_text("<a>&lt;b&gt;</a>", "pom.xml", "gpt") == "<a>&lt;b&gt;</a>"


def test_replacement_characters_are_stripped_for_non_claude_models() -> None:
    assert model_text("caf\ufffde", "a.txt", "gemini") == "cafe"
    assert clean_write_content("```\nx = \ufffd1\n```", "a.py", "gpt") == "x = 1"


def test_placeholder_comments_are_detected() -> None:
    new = "def a():\n    return 1\n\n# ... rest of the code unchanged ...\n"
    found = omission_placeholders(new, "def a():\n    return 0\n")
    assert [p.line for p in found] == [4]
    assert "truncated" in truncation_warning(found)


def test_placeholders_in_several_languages() -> None:
    for line in (
        "// ... existing code ...",
        "    // rest of the methods remain the same",
        "<!-- remaining sections unchanged -->",
        "# other functions unchanged",
        "/* ... */",
        "    ...",
    ):
        assert omission_placeholders(f"x\n{line}\ny", "x\ny"), line


def test_placeholders_already_in_the_old_file_are_not_news() -> None:
    old = "def stub():\n    ...\n"
    assert omission_placeholders("def stub():\n    ...\n\ndef more():\n    return 1\n", old) == []


def test_ordinary_comments_are_not_placeholders() -> None:
    text = (
        "# Compute the rest of the payment\n// keep the existing behaviour for old clients\nx = 1"
    )
    assert omission_placeholders(text) == []
    assert truncation_warning([]) == ""
