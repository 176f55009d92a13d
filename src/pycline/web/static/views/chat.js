// The chat screen: the task header, the transcript, the buttons of the open question and the
// input box; the welcome screen when no task is shown.

import { html } from "../lib/html.js";
import { useEffect, useMemo, useState } from "../vendor/hooks.js";
import { api, enc } from "../lib/api.js";
import { errorText } from "../lib/store.js";
import { toolFacts } from "../lib/tools.js";
import { Markdown } from "./common.js";
import { MessageList } from "./messages.js";
import { InputBox } from "./input.js";
import { QuoteButton } from "./quote.js";
import { checkpointBefore, compare, restoreAsking, showProcesses, viewChanges } from "./task_actions.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {import("../lib/transcript.js").Transcript} Transcript
 * @typedef {import("../types/page").Row} Row
 * @typedef {import("./rows.js").RowContext} RowContext
 */

const LIVE = new Set(["running", "waiting"]);
/** @param {number} n */
const fmt = (n) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

/** @param {{ store: Store }} props */
export function ChatView({ store }) {
  const t = store.shown;
  return html`<section class="chat" aria-label="Chat" hidden=${store.screen !== "chat"}>
    ${t ? html`<${TaskHeader} store=${store} t=${t} />` : null}
    ${t ? html`<${Transcript} key=${`${t.taskId}/${t.run}`} store=${store} t=${t} version=${t.version} />` : html`<${Welcome} store=${store} />`}
    <${Actions} store=${store} t=${t} />
    <${InputBox} store=${store} />
    <${QuoteButton} store=${store} />
  </section>`;
}

/** @param {{ store: Store, t: Transcript, version: number }} props */
function Transcript({ store, t }) {
  const ctx = useMemo(() => rowContext(store, t), [store, t]);
  return html`<${MessageList} transcript=${t} version=${t.version} ctx=${ctx} />`;
}

/** What rows can do, bound to one transcript.
 * @param {Store} store
 * @param {Transcript} t
 * @returns {RowContext} */
export function rowContext(store, t) {
  return {
    compare: (commit) => compare(store, t.taskId, commit),
    restore: (commit, mode) => restoreAsking(store, t.taskId, commit, mode),
    viewChanges: () => viewChanges(store, t),
    checkpointBefore: (row) => checkpointBefore(t, row),
    resend: (row, commit, restore, text) => store.resend(t.taskId, { ts: row.ts, original: row.original ?? row.text ?? "", commit: commit || "", restore, text }),
    bump: (row) => {
      row.version++;
      t.version++;
      store.changed();
    },
  };
}

/** $cost, tokens, the context window, the TODO list, Compact and the processes.
 * @param {{ store: Store, t: Transcript }} props */
function TaskHeader({ store, t }) {
  const u = t.usage;
  const live = LIVE.has(t.status) && !t.background;
  const share = u.window ? Math.min(1, u.context / u.window) : 0;
  const compact = () => {
    if (confirm("Compact this task? The conversation so far is replaced by a summary.")) store.command("compact", t.taskId);
  };
  const status = t.shownStatus;
  return html`<header class="task-header" aria-label="Task">
    <div class="task-line"><span class="task-text">${t.text || "Task"}</span><span class="cost" aria-label="Cost">$${u.cost.toFixed(4)}</span></div>
    <div class="stats">
      <span aria-label="Tokens in">↑ ${fmt(u.input)}</span><span aria-label="Tokens out">↓ ${fmt(u.output)}</span>
      <span aria-label="Cache">Cache: +${fmt(u.cacheWrites)} → ${fmt(u.cacheReads)}</span>
      ${u.window ? html`<span class="context-label">${fmt(u.context)} / ${fmt(u.window)}</span>
        <div class="context-bar" role="progressbar" aria-label="Context window" aria-valuemin="0" aria-valuemax=${String(u.window)} aria-valuenow=${String(u.context)}
          title=${`Prompt ${u.input} · Completion ${u.output} · Cache writes ${u.cacheWrites} · Cache reads ${u.cacheReads}`}>
          <div class="context-fill" style=${{ width: `${(share * 100).toFixed(1)}%` }} /></div>` : null}
      <button type="button" aria-label="Compact Task" disabled=${!live} onClick=${compact}>Compact</button>
      <button type="button" aria-label="Background processes" disabled=${!live} onClick=${() => showProcesses(store, t.taskId)}>Processes</button>
      <span class=${`status ${status}`}>${status}</span>
    </div>
    ${t.progress ? html`<details class="progress"><summary aria-label="Task progress">${t.progress.completed}/${t.progress.total} · ${t.progress.current}</summary><${Markdown} text=${t.progress.checklist} /></details>` : null}
  </header>`;
}

const SUGGESTIONS = ["Explain this project's structure", "Find and fix a bug in the tests", "Add a README section on how to run it"];

/** @param {{ store: Store }} props */
function Welcome({ store }) {
  /** @type {[{ id: string, task: string }[], (r: { id: string, task: string }[]) => void]} */
  const [recent, setRecent] = useState(/** @type {{ id: string, task: string }[]} */ ([]));
  useEffect(() => {
    api.get("/api/history?sort=newest&workspace=1").then((rows) => setRecent(rows.slice(0, 3))).catch(() => {});
  }, []);
  return html`<div class="welcome">
    <h1>What can I do for you?</h1>
    <p class="muted">Describe a task. Cline-style approvals keep you in control of every edit and command.</p>
    <div class="suggestions">${SUGGESTIONS.map((s) => html`<button type="button" class="suggestion" onClick=${() => store.setDraft(s)}>${s}</button>`)}</div>
    ${recent.length ? html`<div><h2>Recent</h2><ul class="recent" aria-label="Recent tasks">
      ${recent.map((r) => html`<li><button type="button" class="link" onClick=${() => store.openSaved(r.id).catch((e) => store.notify(errorText(e), true))}>${r.task.slice(0, 80)}</button></li>`)}
    </ul><button type="button" class="link" onClick=${() => store.show("history")}>View All</button></div>` : null}
  </div>`;
}

/** The buttons of the open question, or Cancel and Proceed While Running, or Resume.
 * @param {{ store: Store, t: Transcript | null }} props */
function Actions({ store, t }) {
  if (!t) return null;
  const buttons = [];
  const q = t.question;
  if (q && t.status === "waiting") {
    for (const o of q.options || []) {
      buttons.push(html`<button type="button" class=${o.secondary ? "secondary" : "primary"} onClick=${() => store.choose(o.id)}>${o.label}</button>`);
    }
  } else if (t.status === "running") {
    if (t.streaming) buttons.push(html`<span class="thinking" role="status" aria-label="Model status">Thinking…</span>`);
    const tool = t.lastTool();
    const running = tool && tool.type === "tool" && !tool.done && !tool.partial;
    if (running && tool.tool && toolFacts(tool.tool).effect === "execute" && !t.background) {
      buttons.push(html`<button type="button" class="primary" onClick=${() => store.command("proceed", t.taskId)}>Proceed While Running</button>`);
    }
    buttons.push(html`<button type="button" class="secondary" onClick=${() => store.command("cancel", t.taskId)}>Cancel</button>`);
  } else if (t.status === "saved" || t.status === "cancelled" || t.status === "failed") {
    buttons.push(html`<button type="button" class="primary" onClick=${() => store.resume(t.taskId).catch(() => {})}>Resume Task</button>`);
    buttons.push(html`<button type="button" class="secondary" onClick=${() => store.newTask()}>Start New Task</button>`);
  } else if (t.status === "completed") {
    buttons.push(html`<button type="button" class="primary" onClick=${() => store.newTask()}>Start New Task</button>`);
  }
  if (!buttons.length) return null;
  return html`<div class="actions" role="group" aria-label="Actions">${buttons}</div>`;
}
