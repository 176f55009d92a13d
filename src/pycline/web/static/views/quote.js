// Text selected in the transcript can be quoted into the reply (Cline's QuoteButton).

import { html } from "../lib/html.js";
import { useEffect, useState } from "../vendor/hooks.js";

/** @typedef {import("../lib/store.js").Store} Store */

/** @param {{ store: Store }} props */
export function QuoteButton({ store }) {
  const [quote, setQuote] = useState(/** @type {{ text: string, top: number, left: number } | null} */ (null));
  useEffect(() => {
    const changed = () => {
      const sel = document.getSelection();
      const text = sel && sel.rangeCount ? sel.toString().trim() : "";
      const log = document.querySelector(".chat [role=log]");
      if (!text || !sel || !log || !log.contains(sel.anchorNode) || store.screen !== "chat") return setQuote(null);
      const rect = sel.getRangeAt(0).getBoundingClientRect();
      setQuote({ text, top: Math.max(0, rect.top - 34), left: Math.max(0, rect.left) });
    };
    document.addEventListener("selectionchange", changed);
    return () => document.removeEventListener("selectionchange", changed);
  }, []);
  if (!quote) return null;
  const use = () => {
    const quoted = quote.text.split("\n").map((line) => `> ${line}`).join("\n");
    const rest = store.draft.text.trim();
    store.setDraft(`${quoted}\n\n${rest}`);
    document.getSelection()?.removeAllRanges();
    setQuote(null);
    /** @type {HTMLTextAreaElement | null} */ (document.querySelector("textarea[aria-label=Message]"))?.focus();
  };
  return html`<button type="button" class="quote-button primary" aria-label="Quote selection" style=${{ top: `${quote.top}px`, left: `${quote.left}px` }}
    onMouseDown=${(/** @type {MouseEvent} */ e) => e.preventDefault()} onClick=${use}>Quote</button>`;
}
