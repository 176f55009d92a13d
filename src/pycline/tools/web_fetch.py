"""`web_fetch`: a web page as readable Markdown (SPEC §2); `fetch_markdown` also serves URL mentions.

Downloads are capped (a huge page must not fill memory) and so is the Markdown handed to the model
(a huge page must not fill the context window); both cuts are announced in the text.
"""

from __future__ import annotations

import asyncio
import re
from urllib.parse import urljoin

from pycline.errors import ToolError
from pycline.events import ApprovalQuestion
from pycline.prompts import responses
from pycline.tools.addresses import known_charset, non_public_reason
from pycline.tools.base import (
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)

MAX_DOWNLOAD_BYTES = 5_000_000
MAX_MARKDOWN_CHARS = 100_000
FETCH_TIMEOUT = 30.0

_USER_AGENT = "pycline/0.1 (web_fetch; +https://pypi.org/project/pycline/)"
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
)
# Content a reader never sees; script and style text would otherwise leak into the Markdown.
_INVISIBLE = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "head")

WEB_FETCH_SPEC = ToolSpec(
    name="web_fetch",
    facts=ToolFacts(
        effect="read",
        title="Cline wants to fetch content from this URL:",
        done_title="Cline fetched this URL:",
        label="Fetch {url}",
        kind="fetch",
        read_only=True,
    ),
    description=(
        "Fetch a web page (http or https) as Markdown, e.g. documentation; plain text and JSON "
        "come as they are; long pages are cut."
    ),
    params=(
        ParamSpec("url", "The full http(s) URL."),
        ParamSpec(
            "prompt",
            "What you are looking for in the page.",
            required=False,
        ),
    ),
    example=(
        "<web_fetch>\n<url>https://docs.python.org/3/library/asyncio-task.html</url>\n"
        "<prompt>How does asyncio.timeout work?</prompt>\n</web_fetch>"
    ),
)


async def fetch_markdown(
    url: str,
    *,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    max_chars: int = MAX_MARKDOWN_CHARS,
    timeout: float = FETCH_TIMEOUT,
    allow_private: bool = True,
) -> str:
    """The page at `url` as Markdown (HTML converted, text passed through), with cut notes.

    With `allow_private=False`, a redirect to a non-public address is refused (the user approved
    a public one).

    Raises ToolError with a message for the model when the URL is bad, unreachable, answers with
    an HTTP error, or is not a text document.
    """
    url = _check_url(url)
    try:
        async with asyncio.timeout(timeout):
            body, content_type, charset, final_url, cut = await _download(
                url, max_bytes, timeout, allow_private
            )
    except TimeoutError as exc:
        raise ToolError(f"Fetching {url} timed out after {timeout:.0f}s.") from exc
    charset = known_charset(charset)  # a page naming an encoding nobody knows: UTF-8
    kind = _kind(content_type, body)
    if kind == "html":
        # Conversion of a big page takes a while: keep the event loop responsive.
        text = await asyncio.to_thread(html_to_markdown, body, final_url, charset)
    elif kind == "text":
        text = body.decode(charset or "utf-8", errors="replace")
    else:
        raise ToolError(
            f"{url} is not a web page or text document (content type {content_type!r}); "
            "web_fetch reads HTML, plain text and JSON."
        )
    notes: list[str] = []
    if cut:
        notes.append(f"Only the first {max_bytes:,} bytes of the page were downloaded.")
    if len(text) > max_chars:
        notes.append(f"The content was cut at {max_chars:,} of {len(text):,} characters.")
        text = text[:max_chars]
    text = text.strip() or "(The page has no readable text.)"
    return text + "".join(f"\n\n[{note}]" for note in notes)


def _check_url(raw: str) -> str:
    url = raw.strip()
    if not re.match(r"^https?://[^\s/]+", url, flags=re.IGNORECASE) or any(
        c.isspace() for c in url
    ):
        raise ToolError(f"Invalid URL {raw!r}: it must start with http:// or https://.")
    return url


async def _download(
    url: str, max_bytes: int, timeout: float, allow_private: bool = True
) -> tuple[bytes, str, str | None, str, bool]:
    """(body, content type, charset, final URL after redirects, cut at max_bytes)."""
    import httpx2

    async def check_hop(request: httpx2.Request) -> None:
        if allow_private:
            return
        reason = await non_public_reason(str(request.url))
        if reason is not None:
            raise ToolError(f"Fetching {url} was redirected to {request.url}, but {reason}.")

    try:
        async with (
            httpx2.AsyncClient(
                follow_redirects=True,
                max_redirects=5,
                timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
                event_hooks={"request": [check_hop]},
                headers={
                    "User-Agent": _USER_AGENT,
                    "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
                },
            ) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code >= 400:
                raise ToolError(
                    f"Fetching {url} failed: HTTP {response.status_code} {response.reason_phrase}."
                )
            chunks: list[bytes] = []
            size = 0
            cut = False
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > max_bytes:
                    cut = True
                    break
            body = b"".join(chunks)[:max_bytes]
            content_type = response.headers.get("content-type", "")
            return body, content_type, response.charset_encoding, str(response.url), cut
    except httpx2.InvalidURL as exc:
        raise ToolError(f"Invalid URL {url!r}: {exc}.") from exc
    except httpx2.TooManyRedirects as exc:
        raise ToolError(f"Fetching {url} failed: too many redirects.") from exc
    except httpx2.TimeoutException as exc:
        raise ToolError(f"Fetching {url} timed out after {timeout:.0f}s.") from exc
    except httpx2.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        raise ToolError(f"Could not reach {url}: {reason}.") from exc


def _kind(content_type: str, body: bytes) -> str:
    mime = content_type.split(";", 1)[0].strip().lower()
    if mime in _HTML_TYPES:
        return "html"
    if mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith(("+json", "+xml")):
        return "text"
    if mime and mime != "application/octet-stream":
        return "other"
    # No useful type: look at the bytes.
    head = body[:1024].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return "html"
    return "other" if b"\x00" in body[:8192] else "text"


def html_to_markdown(html: bytes | str, base_url: str = "", charset: str | None = None) -> str:
    """Readable Markdown of an HTML document: title, headings, text, links (made absolute)."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    # Without a header charset, BeautifulSoup sniffs <meta charset> from the bytes itself.
    soup = BeautifulSoup(
        html, "html.parser", from_encoding=charset if isinstance(html, bytes) else None
    )
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(_INVISIBLE):
        tag.decompose()
    for link in soup.find_all("a", href=True):
        link["href"] = urljoin(base_url, str(link["href"]))
    for image in soup.find_all("img"):
        src = str(image.get("src", ""))
        if not src or src.startswith("data:"):
            image.decompose()  # inline images are kilobytes of base64 the model cannot use
        else:
            image["src"] = urljoin(base_url, src)
    markdown = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    lines = [line.rstrip() for line in markdown.splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if title and title not in text[:500]:
        text = f"Title: {title}\n\n{text}"
    return text


class WebFetchTool:
    spec = WEB_FETCH_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("url"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        url = _check_url(call.require("url"))
        prompt = call.get("prompt")
        # Loopback, the LAN, cloud metadata: reaching them is the user's call, like a file
        # outside the workspace.
        private = await non_public_reason(url)
        summary = self.summary(call)
        if private is not None:
            summary = f"{summary} (needs approval: {private})"
        approval = await ctx.approve(
            ApprovalQuestion(self.spec.name, summary, preview=url),
            "read",
            outside_workspace=private is not None,
        )
        if not approval.approved:
            return ToolResult(
                responses.with_feedback(responses.DENIED, approval.feedback), denied=True
            )
        content = await fetch_markdown(url, allow_private=private is not None)
        text = f"Content of {url} (as Markdown):\n\n{content}"
        if prompt:
            text += f"\n\n(Read the content above with this question in mind: {prompt.strip()})"
        return ToolResult(responses.with_feedback(text, approval.feedback))
