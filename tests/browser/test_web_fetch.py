"""web_fetch against real pages on a loopback server."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.tools.base import Approval, ToolCall
from pycline.tools.web_fetch import WebFetchTool, fetch_markdown, html_to_markdown
from tests.browser.conftest import Site
from tests.browser.context import Approvals, tool_context

ARTICLE = """<!doctype html>
<html><head><title>Release notes</title><style>body { color: red; }</style>
<script>var secret = "do not show";</script></head>
<body>
<nav><a href="/docs">Docs</a></nav>
<h1>Version 2.0</h1>
<p>The <strong>new</strong> parser is faster. See the <a href="/changelog#v2">full changelog</a>.</p>
<ul><li>First change</li><li>Second change</li></ul>
<pre><code>pip install thing==2.0</code></pre>
<img src="data:image/png;base64,AAAA" alt="inline">
<img src="/logo.png" alt="logo">
<script>console.log("also hidden")</script>
</body></html>"""


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_html_becomes_markdown_with_headings_and_absolute_links(site: Site) -> None:
    markdown = await fetch_markdown(site.add("/notes", ARTICLE))
    assert markdown.startswith("Title: Release notes")
    assert "# Version 2.0" in markdown
    assert f"[full changelog]({site.base}/changelog#v2)" in markdown
    assert "**new**" in markdown
    assert "- First change" in markdown
    assert "pip install thing==2.0" in markdown
    assert f"![logo]({site.base}/logo.png)" in markdown
    for hidden in ("secret", "also hidden", "color: red", "base64"):
        assert hidden not in markdown


async def test_plain_text_and_json_pass_through(site: Site) -> None:
    text = await fetch_markdown(site.add("/a.txt", "just *text*\n", "text/plain"))
    assert text == "just *text*"
    data = {"name": "pycline", "tags": ["a", "b"]}
    body = await fetch_markdown(site.add("/a.json", json.dumps(data), "application/json"))
    assert json.loads(body) == data


async def test_charset_from_the_page_is_honoured(site: Site) -> None:
    page = '<html><head><meta charset="iso-8859-1"></head><body><p>café</p></body></html>'
    url = site.add("/latin", page.encode("iso-8859-1"), "text/html")
    assert "café" in await fetch_markdown(url)


async def test_long_pages_are_cut_with_a_note(site: Site) -> None:
    url = site.add("/long", "<p>" + "word " * 50_000 + "</p>")
    markdown = await fetch_markdown(url, max_chars=1_000)
    body, note = markdown.rsplit("\n\n", 1)
    assert len(body) <= 1_000
    assert note == "[The content was cut at 1,000 of 249,999 characters.]"


async def test_downloads_stop_at_the_byte_cap(site: Site) -> None:
    url = site.add("/big", "x" * 200_000, "text/plain")
    text = await fetch_markdown(url, max_bytes=10_000)
    assert text.startswith("x" * 10_000) and "x" * 10_001 not in text
    assert text.endswith("[Only the first 10,000 bytes of the page were downloaded.]")


async def test_unreachable_url_is_a_clear_tool_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    with pytest.raises(ToolError, match=r"Could not reach http://127\.0\.0\.1:\d+/"):
        await fetch_markdown(url)


async def test_http_errors_name_the_status(site: Site) -> None:
    with pytest.raises(ToolError, match="HTTP 404 Not Found"):
        await fetch_markdown(site.url("/missing"))


@pytest.mark.parametrize("url", ["ftp://example.com/x", "example.com", "http://", "http://a b"])
async def test_only_http_urls_are_fetched(url: str) -> None:
    with pytest.raises(ToolError, match="Invalid URL"):
        await fetch_markdown(url)


async def test_binary_content_is_refused(site: Site) -> None:
    url = site.add("/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00", "image/png")
    with pytest.raises(ToolError, match="not a web page"):
        await fetch_markdown(url)


def test_html_to_markdown_without_a_title_or_body() -> None:
    assert html_to_markdown("<p>Hi <a href='x.html'>there</a></p>", "http://h/d/") == (
        "Hi [there](http://h/d/x.html)"
    )


async def test_tool_asks_read_approval_and_returns_the_page(site: Site, workspace: Path) -> None:
    approvals = Approvals()
    url = site.add("/notes", ARTICLE)
    call = ToolCall("web_fetch", {"url": url, "prompt": "What changed?"})
    result = await WebFetchTool().run(call, tool_context(workspace, approvals))
    [(question, category, outside)] = approvals.asked
    # The test site is on loopback: not public, so the question says it is "outside".
    assert (question.tool, question.preview, category, outside) == ("web_fetch", url, "read", True)
    assert result.text.startswith(f"Content of {url} (as Markdown):")
    assert "# Version 2.0" in result.text and "What changed?" in result.text
    assert WebFetchTool().summary(call) == f"web_fetch for '{url}'"


async def test_tool_denied_fetches_nothing(site: Site, workspace: Path) -> None:
    approvals = Approvals(Approval(False))
    url = site.add("/notes", ARTICLE)
    result = await WebFetchTool().run(
        ToolCall("web_fetch", {"url": url}), tool_context(workspace, approvals)
    )
    assert result.denied
    assert site.hits == []


async def test_a_page_in_a_charset_nobody_knows_is_read_as_utf8(site: Site) -> None:
    url = site.add("/odd", "caf\u00e9 ok".encode(), "text/plain; charset=x-no-such-charset")
    assert "ok" in await fetch_markdown(url)
    html = site.add("/odd.html", "<p>fine</p>", "text/html; charset=x-no-such-charset")
    assert "fine" in await fetch_markdown(html)
