"""A small language server (pygls) that publishes diagnostics in two rounds, like real ones.

Run as a script: `python lsp_server.py`. Every line containing `BAD` is an error. On each
open or change it first publishes no diagnostics (a fast syntax pass), then, a moment later,
the errors (the slower type pass), without a version, as typescript-language-server does.
"""

from __future__ import annotations

import asyncio
import os

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

SECOND_ROUND_DELAY = 0.05  # the fake's own pace between its two rounds, not a test wait
# A slow server (a loaded machine, a cold start): this long before each of the two rounds.
PACE = float(os.environ.get("FAKE_LSP_PACE", "0"))

server = LanguageServer("fake-lsp", "1")


def _errors(text: str) -> list[lsp.Diagnostic]:
    return [
        lsp.Diagnostic(
            range=lsp.Range(lsp.Position(n, 0), lsp.Position(n, len(line))),
            message=f"bad thing on line {n + 1}",
            severity=lsp.DiagnosticSeverity.Error,
            source="fake",
        )
        for n, line in enumerate(text.split("\n"))
        if "BAD" in line
    ]


async def _publish(uri: str, text: str) -> None:
    await asyncio.sleep(PACE)
    server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    await asyncio.sleep(PACE or SECOND_ROUND_DELAY)
    server.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=uri, diagnostics=_errors(text))
    )


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: LanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    await _publish(params.text_document.uri, params.text_document.text)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: LanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    change = params.content_changes[-1]
    assert isinstance(change, lsp.TextDocumentContentChangeWholeDocument)
    await _publish(params.text_document.uri, change.text)


if __name__ == "__main__":
    server.start_io()
