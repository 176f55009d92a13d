// The task's background processes (commands left running), read again every second while the
// dialog is open, each with Stop.

import { html } from "../lib/html.js";
import { useEffect, useState } from "../vendor/hooks.js";
import { api, enc } from "../lib/api.js";
import { errorText } from "../lib/store.js";

/** @typedef {{ id: number, command: string, running: boolean, exit_code: number | null }} Process */

const POLL_MS = 1000;

/** @param {{ store: import("../lib/store.js").Store, taskId: string }} props */
export function ProcessesDialog({ store, taskId }) {
  const [rows, setRows] = useState(/** @type {Process[] | null} */ (null));
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    api.get(`/api/tasks/${enc(taskId)}/processes`).catch(() => []).then((found) => {
      if (!live) return;
      setRows(found);
      store.processesSeen(taskId, found);
    });
    const timer = setTimeout(() => live && setTick(tick + 1), POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [tick]);
  const stop = async (/** @type {Process} */ p) => {
    await api.post(`/api/tasks/${enc(taskId)}/processes/${p.id}/stop`).catch((e) => store.notify(errorText(e), true));
    setTick(tick + 1);
  };
  if (rows === null) return html`<p class="muted">Loading…</p>`;
  return html`<ul class="processes" aria-label="Background processes">
    ${rows.length ? rows.map((p) => html`<li><code>${p.command}</code> <span class="muted">${p.running ? "running" : `exited (${p.exit_code})`}</span>
      ${p.running ? html` <button type="button" aria-label=${`Stop ${p.command}`} onClick=${() => stop(p)}>Stop</button>` : null}</li>`)
      : html`<li class="muted">No background processes.</li>`}
  </ul>`;
}
