// The page: navigation, the tabs of the tasks, the screen shown, notifications and dialogs.

import { html } from "../lib/html.js";
import { useEffect, useRef, useState } from "../vendor/hooks.js";
import { ChatView } from "./chat.js";
import { Dialogs, useStore } from "./common.js";
import { HistoryView } from "./history.js";
import { McpView } from "./mcp.js";
import { ParallelView } from "./parallel.js";
import { SettingsView } from "./settings.js";

/** @typedef {import("../lib/store.js").Store} Store */

const TOAST_MS = 4000;

/** @param {{ store: Store }} props */
export function App({ store }) {
  useStore(store);
  return html`
    <nav class="navbar" aria-label="Main">
      <span class="brand">pycline</span>
      ${store.connected ? null : html`<span class="warn" role="status">reconnecting…</span>`}
      <button type="button" aria-label="New Task" onClick=${() => store.newTask()}>New Task</button>
      <button type="button" aria-label="MCP Servers" onClick=${() => store.show("mcp")}>MCP Servers</button>
      <button type="button" aria-label="History" onClick=${() => store.show("history")}>History</button>
      <button type="button" aria-label="Parallel Tasks" onClick=${() => store.show("parallel")}>Parallel Tasks</button>
      <button type="button" aria-label="Settings" onClick=${() => store.show("settings")}>Settings</button>
    </nav>
    <${Tabs} store=${store} />
    <main class="main">
      <${ChatView} store=${store} />
      <${HistoryView} store=${store} />
      <${SettingsView} store=${store} />
      <${McpView} store=${store} />
      <${ParallelView} store=${store} />
    </main>
    <${Toast} toast=${store.toast} />
    <${Dialogs} store=${store} />`;
}

/** One tab per task (running, waiting or done), each with a close button.
 * @param {{ store: Store }} props */
function Tabs({ store }) {
  const tabs = store.tabs();
  const bar = useRef(/** @type {HTMLElement | null} */ (null));
  // The tab of the task on screen is scrolled into view whenever it changes (a new task, one
  // opened from History or Parallel Tasks, a reload), however many tabs there are.
  const shown = store.current === null ? null : store.transcripts.get(store.current);
  useEffect(() => {
    const selected = bar.current?.querySelector('[role="tab"][aria-selected="true"]')?.closest(".tab-box");
    if (selected) selected.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [store.current, tabs.length, shown?.shownStatus]); // its label grows with its status
  if (!tabs.length) return null;
  return html`<div class="tabs" role="tablist" aria-label="Tasks" ref=${bar}>
    ${tabs.map((s) => {
      const t = store.transcripts.get(s.id);
      const status = t ? t.shownStatus : s.status;
      const text = (s.task || t?.text || s.id).slice(0, 40);
      return html`<span class=${`tab-box ${status}`} key=${s.id}>
        <button type="button" role="tab" class="tab" aria-selected=${String(s.id === store.current)} title=${s.task} onClick=${() => store.select(s.id)}>${text} — ${status}</button>
        <button type="button" class="tab-close" aria-label=${`Close tab ${text}`} title="Close this tab (the task goes on; History has it)" onClick=${() => store.closeTab(s.id)}>×</button>
      </span>`;
    })}
  </div>`;
}

/** @param {{ toast: { text: string, error: boolean, at: number } | null }} props */
function Toast({ toast }) {
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    if (!toast) return;
    setVisible(true);
    const timer = setTimeout(() => setVisible(false), TOAST_MS);
    return () => clearTimeout(timer);
  }, [toast?.at]);
  return html`<div class=${`toast${visible ? " visible" : ""}${toast?.error ? " error" : ""}`} role="status" aria-live="polite" aria-label="Notifications">${toast?.text || ""}</div>`;
}
