// Model and MCP text as HTML: markdown-it with raw HTML off (anything that looks like a tag stays
// text) and images off (no remote fetches), highlight.js for code, then DOMPurify over the result
// with an allowlist of the elements markdown makes, links kept only for http(s) and mailto and
// opened in a new tab without a referrer. Both layers must fail for model text to run.

import MarkdownIt from "../vendor/markdown-it.js";
import DOMPurify from "../vendor/purify.js";
import hljs from "../vendor/highlight.js";

const HIGHLIGHT_LIMIT = 100_000; // longer code is shown plain: highlighting it would stall the page

const ALLOWED_TAGS = [
  "a", "blockquote", "br", "button", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
  "hr", "li", "ol", "p", "pre", "s", "span", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
];
const ALLOWED_ATTR = ["href", "class", "title", "start", "type", "aria-label", "data-copy"];
const SAFE_LINK = /^(?:https?:|mailto:)/i;

/** @param {string} s */
const escape = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Code as highlighted HTML (escaped text in spans); plain for unknown languages or huge code.
 * @param {string} code
 * @param {string} [lang] */
export function highlightCode(code, lang) {
  const name = (lang || "").toLowerCase();
  if (code.length <= HIGHLIGHT_LIMIT && name && hljs.getLanguage(name)) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      /* a grammar that fails on odd input: show it plain */
    }
  }
  return escape(code);
}

const md = new MarkdownIt("default", { html: false, linkify: true, typographer: false, breaks: false });
md.disable(["image"]);
/** @typedef {import("markdown-it").Token} Token */
md.renderer.rules.fence = (/** @type {Token[]} */ tokens, /** @type {number} */ idx) => {
  const token = tokens[idx];
  const lang = token.info.trim().split(/\s+/)[0] || "";
  const label = escape(lang || "text");
  return (
    `<div class="code-block"><div class="code-bar"><span class="code-lang">${label}</span>` +
    `<button type="button" class="link" data-copy="code" aria-label="Copy code">Copy</button></div>` +
    `<pre><code class="hljs">${highlightCode(token.content, lang)}</code></pre></div>`
  );
};
md.renderer.rules.code_block = (/** @type {Token[]} */ tokens, /** @type {number} */ idx) => `<pre><code>${escape(tokens[idx].content)}</code></pre>`;
// "- [ ] step" / "- [x] step": a checklist as the model writes one (task_progress).
md.core.ruler.after("inline", "checklist", (state) => {
  for (const token of state.tokens) {
    if (token.type !== "inline" || !token.children?.length) continue;
    const first = token.children[0];
    const mark = /^\[([ xX])\]\s+/.exec(first.content);
    if (first.type === "text" && mark) first.content = (mark[1] === " " ? "☐ " : "☑ ") + first.content.slice(mark[0].length);
  }
  return false;
});

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.nodeName === "A") {
    const href = node.getAttribute("href") || "";
    if (!SAFE_LINK.test(href)) node.removeAttribute("href");
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** @param {string} dirty */
export function sanitize(dirty) {
  return DOMPurify.sanitize(dirty, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: [...ALLOWED_ATTR, "target", "rel"],
    ALLOW_DATA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  });
}

/** Markdown as sanitized HTML, ready for `dangerouslySetInnerHTML`.
 * @param {string} text */
export function renderMarkdown(text) {
  return sanitize(md.render(text));
}

/** Where a streaming reply can be cut: after its last blank line outside a code fence. The part
 * before renders the same whatever follows, so it is rendered once and kept.
 * @param {string} text
 * @param {{ upto: number, fence: boolean }} from where the previous cut was
 * @returns {{ upto: number, fence: boolean }} */
export function stableCut(text, from) {
  let fence = from.fence;
  let cut = from.upto;
  let cutFence = from.fence;
  let lineStart = from.upto;
  while (true) {
    const end = text.indexOf("\n", lineStart);
    if (end < 0) break;
    const line = text.slice(lineStart, end);
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    else if (!fence && !line.trim()) {
      cut = end + 1;
      cutFence = fence;
    }
    lineStart = end + 1;
  }
  return { upto: cut, fence: cutFence };
}
