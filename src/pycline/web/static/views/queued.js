// Messages sent while the task works: listed above the input box until the task's next turn
// takes them, each editable and cancellable (the task's own queue, changed by typed commands).

import { html } from "../lib/html.js";
import { useState } from "../vendor/hooks.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {import("../types/events").QueuedMessage} QueuedMessage
 */

/** @param {{ store: Store }} props */
export function QueuedMessages({ store }) {
  const t = store.shown;
  const [editing, setEditing] = useState(/** @type {{ id: string, text: string } | null} */ (null));
  if (!t || !t.queued.length) return null;
  const save = () => {
    if (editing && editing.text.trim()) store.command("edit_queued", t.taskId, { message_id: editing.id, text: editing.text });
    setEditing(null);
  };
  /** @param {QueuedMessage} m
   * @param {number} i */
  const item = (m, i) => {
    const n = i + 1;
    if (editing && editing.id === m.message_id) {
      return html`<li class="queued-item editing">
        <textarea rows="2" aria-label=${`Edit queued message ${n}`} value=${editing.text}
          onInput=${(/** @type {Event} */ e) => setEditing({ id: m.message_id, text: /** @type {HTMLTextAreaElement} */ (e.currentTarget).value })}
          onKeyDown=${(/** @type {KeyboardEvent} */ e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); save(); } else if (e.key === "Escape") setEditing(null); }} />
        <button type="button" class="link" aria-label=${`Save queued message ${n}`} onClick=${save}>Save</button>
      </li>`;
    }
    return html`<li class="queued-item">
      <span class="queued-text">${m.text}</span>${m.images && m.images.length ? html`<span class="muted"> (+${m.images.length} images)</span>` : null}
      <button type="button" class="link" aria-label=${`Edit queued message ${n}`} onClick=${() => setEditing({ id: m.message_id, text: m.text })}>Edit</button>
      <button type="button" class="link" aria-label=${`Cancel queued message ${n}`} onClick=${() => store.command("cancel_queued", t.taskId, { message_id: m.message_id })}>Cancel</button>
    </li>`;
  };
  return html`<div class="queued" role="region" aria-label="Queued messages">
    <div class="muted">Queued: sent after the running step</div>
    <ol>${t.queued.map(item)}</ol>
  </div>`;
}
