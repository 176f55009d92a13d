// Hostile text through the page's renderers (jsdom): markup the model or an MCP server writes
// never becomes an element, a script, a handler or a javascript: link, and huge text is shown.

import { test } from "node:test";
import assert from "node:assert/strict";
import { dom } from "./dom.mjs";

const { renderMarkdown, highlightCode } = await import("../../../src/pycline/web/static/lib/markdown.js");
const { html, render } = await import("../../../src/pycline/web/static/lib/html.js");
const { RowView } = await import("../../../src/pycline/web/static/views/rows.js");
const { setTools } = await import("../../../src/pycline/web/static/lib/tools.js");

setTools({
  execute_command: { effect: "execute", title: "Cline wants to execute this command:", done_title: "Cline executed this command:", kind: "execute", conversational: false },
  use_mcp_tool: { effect: "mcp", title: "Cline wants to use a tool on an MCP server:", done_title: "", kind: "other", conversational: false },
});

const HOSTILE = [
  "<script>window.pwned = 1</script>",
  '<img src=x onerror="window.pwned = 1">',
  "[click](javascript:window.pwned=1)",
  "[click](JAVASCRIPT:window.pwned=1)",
  "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[vb](vbscript:msgbox)",
  "![pixel](https://tracker.example/p.gif)",
  '<a href="javascript:alert(1)">x</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload="window.pwned=1"><circle/></svg>',
  "```html\n<script>window.pwned=1</script>\n```",
  '<div style="position:fixed;inset:0">cover</div>',
  "<form action=https://evil.example><input name=p></form>",
];

/** @param {string} markup */
function fragment(markup) {
  const box = dom.window.document.createElement("div");
  box.innerHTML = markup;
  return box;
}

/** Everything that could run or load something. */
function dangers(box) {
  const found = [];
  for (const el of box.querySelectorAll("*")) {
    const tag = el.tagName.toLowerCase();
    if (["script", "iframe", "img", "svg", "form", "input", "object", "embed", "style", "link", "meta"].includes(tag)) found.push(tag);
    for (const attr of el.attributes) {
      if (attr.name.startsWith("on") || attr.name === "style" || attr.name === "src") found.push(`${tag}[${attr.name}]`);
      if (attr.name === "href" && !/^(https?:|mailto:)/i.test(attr.value)) found.push(`${tag}[href=${attr.value}]`);
    }
  }
  return found;
}

for (const text of HOSTILE) {
  test(`Markdown keeps ${JSON.stringify(text.slice(0, 40))} harmless`, () => {
    const box = fragment(renderMarkdown(text));
    assert.deepEqual(dangers(box), []);
    assert.equal(dom.window.pwned, undefined);
  });
}

test("a web link opens in a new tab without a referrer; the text around markup is kept", () => {
  const box = fragment(renderMarkdown("See [docs](https://example.com/a) and <b>bold</b>."));
  const link = box.querySelector("a");
  assert.equal(link.getAttribute("href"), "https://example.com/a");
  assert.equal(link.getAttribute("target"), "_blank");
  assert.equal(link.getAttribute("rel"), "noopener noreferrer");
  assert.match(box.textContent, /<b>bold<\/b>/); // shown as typed, not as markup
});

test("code is highlighted as escaped text in spans", () => {
  const out = fragment(highlightCode('x = "</code><script>1</script>"', "python"));
  assert.deepEqual(dangers(out), []);
  assert.equal(out.textContent, 'x = "</code><script>1</script>"');
  assert.ok(out.querySelector("span.hljs-string"));
});

test("huge text renders, its code plain beyond the highlighting limit", () => {
  const prose = "word ".repeat(200_000);
  const code = "```js\n" + "let a = 1;\n".repeat(20_000) + "```";
  const started = performance.now();
  const box = fragment(renderMarkdown(`${prose}\n\n${code}\n\n${"> ".repeat(500)}deep`));
  assert.ok(performance.now() - started < 20_000);
  assert.ok(box.textContent.includes("let a = 1;"));
  assert.equal(box.querySelectorAll("span.hljs-keyword").length, 0);
});

/** @param {object} row */
function drawn(row) {
  const host = dom.window.document.createElement("div");
  const ctx = { compare() {}, restore() {}, viewChanges() {}, checkpointBefore: () => null, resend() {}, bump() {} };
  render(html`<${RowView} row=${{ id: 1, index: 0, version: 0, turn: 0, ...row }} version=${0} ctx=${ctx} />`, host);
  return host;
}

test("rows show the user's, the tools' and the model's text as text", () => {
  const evil = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>';
  for (const row of [
    { type: "user", text: evil },
    { type: "notice", text: evil },
    { type: "error", text: evil },
    { type: "reasoning", text: evil },
    { type: "tool", tool: "execute_command", summary: evil, output: evil, done: true, ok: true, result: evil },
    { type: "tool", tool: "use_mcp_tool", summary: evil, output: "", done: true, ok: true, result: `# Title\n\n${evil}\n\n[x](javascript:alert(1))` },
    { type: "tool", tool: "execute_command", summary: evil, output: "", done: false, questionId: "q", preview: evil, content: evil },
    { type: "completion", text: evil, command: evil },
    { type: "followup", question: evil },
    { type: "text", text: evil, streaming: true },
    { type: "text", text: `${evil}\n\nmore ${evil}\n\n`, streaming: true },
  ]) {
    const host = drawn(row);
    assert.deepEqual(dangers(host), [], JSON.stringify(row).slice(0, 80));
    assert.equal(dom.window.pwned, undefined);
  }
});

test("only raster images in base64 data URLs are shown", () => {
  const png = "data:image/png;base64,iVBORw0KGgo=";
  const host = drawn({ type: "tool", tool: "execute_command", summary: "s", output: "", done: true, ok: true, result: "r", images: [png, "https://evil.example/x.png", "data:image/svg+xml;base64,PHN2Zz4="] });
  const shown = [...host.querySelectorAll("img")].map((i) => i.getAttribute("src"));
  assert.deepEqual(shown, [png]);
});

test("the sanitizer alone removes what the Markdown layer would never make", async () => {
  const { sanitize } = await import("../../../src/pycline/web/static/lib/markdown.js");
  const box = fragment(sanitize(HOSTILE.join("\n") + '<a href="javascript:alert(1)" onclick="x()">a</a><p style="color:red" onmouseover="x()">p</p>'));
  assert.deepEqual(dangers(box), []);
  assert.equal(dom.window.pwned, undefined);
});
