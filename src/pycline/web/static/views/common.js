// Small pieces every screen uses: Markdown and code shown safely, diffs, dialogs.

import { html } from "../lib/html.js";
import { useEffect, useRef } from "../vendor/hooks.js";
import { highlightCode, renderMarkdown } from "../lib/markdown.js";

/** @typedef {import("../lib/store.js").Store} Store */
/** @typedef {import("../lib/store.js").Dialog} Dialog */

/** The Copy button of a code block (its markup comes from the Markdown renderer).
 * @param {MouseEvent} e */
export function copyCode(e) {
  const target = /** @type {HTMLElement | null} */ (e.target);
  const button = target?.closest?.("button[data-copy]");
  if (!button) return;
  const code = button.closest(".code-block")?.querySelector("code");
  if (code) navigator.clipboard?.writeText(code.textContent || "");
}

/** Model or MCP text rendered as Markdown (sanitized: see lib/markdown.js).
 * @param {{ text: string, class?: string }} props */
export function Markdown({ text, class: cls }) {
  return html`<div class=${`md ${cls || ""}`} onClick=${copyCode} dangerouslySetInnerHTML=${{ __html: renderMarkdown(text) }} />`;
}

/** @param {{ code: string, lang?: string, label?: string }} props */
export function CodeBlock({ code, lang, label }) {
  return html`<div class="code-block">
    <div class="code-bar"><span class="code-lang">${lang || "text"}</span>
      <button type="button" class="link" aria-label="Copy code" onClick=${() => navigator.clipboard?.writeText(code)}>Copy</button></div>
    <pre aria-label=${label}><code class="hljs" dangerouslySetInnerHTML=${{ __html: highlightCode(code, lang) }} /></pre>
  </div>`;
}

/** @param {string} diff */
export function diffCounts(diff) {
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added++;
    else if (line.startsWith("-") && !line.startsWith("---")) removed++;
  }
  return { added, removed };
}

/** @param {string} line */
function lineClass(line) {
  if (line.startsWith("+") && !line.startsWith("+++")) return "diff-add";
  if (line.startsWith("-") && !line.startsWith("---")) return "diff-del";
  if (line.startsWith("@@")) return "diff-hunk";
  return undefined;
}

/** A unified diff, one line per span (text only).
 * @param {{ diff: string, label?: string }} props */
export function Diff({ diff, label }) {
  return html`<pre class="diff" aria-label=${label}><code>${diff.split("\n").map((line) => html`<span class=${lineClass(line)}>${line + "\n"}</span>`)}</code></pre>`;
}

/** @param {{ added: number, removed: number }} props */
export function Counts({ added, removed }) {
  return html`<span class="plus">+${added}</span> <span class="minus">−${removed}</span>`;
}

/** The open dialogs, each modal, closed by its button or Escape.
 * @param {{ store: Store }} props */
export function Dialogs({ store }) {
  return html`${store.dialogs.map((d) => html`<${DialogBox} key=${d.id} store=${store} dialog=${d} />`)}`;
}

/** @param {{ store: Store, dialog: Dialog }} props */
function DialogBox({ store, dialog }) {
  const ref = useRef(/** @type {HTMLElement | null} */ (null));
  useEffect(() => {
    ref.current?.querySelector("button")?.focus();
  }, []);
  const close = () => store.closeDialog(dialog);
  return html`<div class="dialog-backdrop" onKeyDown=${(/** @type {KeyboardEvent} */ e) => e.key === "Escape" && close()}>
    <div class="dialog" role="dialog" aria-modal="true" aria-label=${dialog.title} ref=${ref}>
      <div class="dialog-head"><h2>${dialog.title}</h2><button type="button" aria-label="Close" onClick=${close}>Close</button></div>
      <div class="dialog-body">${dialog.body()}</div>
    </div>
  </div>`;
}

/** Re-render a component whenever the store changes. */
export { useStore } from "./use_store.js";
