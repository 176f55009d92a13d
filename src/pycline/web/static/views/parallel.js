// Parallel Tasks: the background tasks of this user (`pycline tasks`: status, cost, what each
// waits for, with an edit's diff or the command; start one, answer it, open or follow its
// transcript, stop it) and this repository's worktree tasks (`pycline worktree`: create, list,
// changes, merge, discard).

import { html } from "../lib/html.js";
import { useEffect, useState } from "../vendor/hooks.js";
import { api, enc } from "../lib/api.js";
import { count, errorText } from "../lib/store.js";
import { toolFacts } from "../lib/tools.js";
import { CodeBlock, Counts, Diff, diffCounts } from "./common.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {{ question_id: string, kind: string, tool?: string | null, preview?: string | null, options: { id: string, label: string }[] }} BgAsk
 * @typedef {{ id: string, task: string, workspace: string, status: string, cost: number, started: number,
 *   task_id: string | null, question: string | null, reason: string, ask?: BgAsk,
 *   front_end: "background" | "terminal" | "web" | "editor", pid: number, here?: boolean }} BgTask
 * @typedef {{ name: string, branch: string, path: string, base: string, target?: string, created: number }} Worktree
 */

const FINISHED = new Set(["completed", "failed", "cancelled"]);
const POLL_MS = 1500; // background tasks are other processes: their state is in files, read again

/** @param {{ store: Store }} props */
export function ParallelView({ store }) {
  const shown = store.screen === "parallel";
  const [tasks, setTasks] = useState(/** @type {BgTask[] | null} */ (null));
  const [trees, setTrees] = useState(/** @type {{ worktrees: Worktree[], error?: string } | null} */ (null));
  const [tick, setTick] = useState(0);
  const [treeTick, setTreeTick] = useState(0);
  useEffect(() => {
    if (!shown) return;
    let live = true;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    api.get("/api/background").then((rows) => {
      if (!live) return;
      // Unchanged: keep the same objects, so what is being typed in a reply box stays.
      setTasks((old) => (JSON.stringify(old) === JSON.stringify(rows) ? old : rows));
      timer = setTimeout(() => setTick((n) => n + 1), POLL_MS);
    }).catch((e) => store.notify(errorText(e), true));
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [shown, tick]);
  useEffect(() => {
    if (shown) api.get("/api/worktrees").then(setTrees).catch((e) => store.notify(errorText(e), true));
  }, [shown, treeTick]);
  const again = () => setTick((n) => n + 1);
  const treesAgain = () => setTreeTick((n) => n + 1);
  return html`<section class="history parallel" aria-label="Parallel Tasks" hidden=${!shown}>
    <div class="view-head"><h1>Parallel Tasks</h1><button type="button" onClick=${() => store.show("chat")}>Done</button></div>
    <h2>Background tasks</h2>
    <${StartForm} store=${store} changed=${again} />
    <ul class="history-list" aria-label="Background tasks">
      ${tasks === null ? null : tasks.length ? tasks.map((r) => html`<${BgItem} key=${r.id} store=${store} r=${r} changed=${again} />`)
        : html`<li class="muted">No background tasks.</li>`}
    </ul>
    <h2>Worktrees</h2>
    <${WorktreeForms} store=${store} changed=${treesAgain} />
    ${trees?.error ? html`<p class="muted">${trees.error}</p>` : null}
    <ul class="history-list" aria-label="Worktrees">
      ${trees === null ? null : trees.worktrees.length ? trees.worktrees.map((w) => html`<${TreeItem} key=${w.name} store=${store} w=${w} changed=${treesAgain} />`)
        : html`<li class="muted">No worktree tasks.</li>`}
    </ul>
  </section>`;
}

/** @param {{ store: Store, changed: () => void }} props */
function StartForm({ store, changed }) {
  const [text, setText] = useState("");
  /** @param {Event} e */
  const submit = async (e) => {
    e.preventDefault();
    if (!text.trim()) return;
    try {
      const r = await api.post("/api/background", { task: text.trim() });
      setText("");
      store.notify(`Started ${r.id} in the background.`);
    } catch (err) {
      store.notify(errorText(err), true);
    }
    changed();
  };
  return html`<form class="filters" onSubmit=${submit}>
    <input aria-label="Background task" placeholder="A task to run in the background…" value=${text} onInput=${(/** @type {Event} */ e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
    <button type="submit" class="primary">Start in background</button>
  </form>`;
}

/** @param {{ store: Store, r: BgTask, changed: () => void }} props */
function BgItem({ store, r, changed }) {
  const live = !FINISHED.has(r.status);
  // This page's own task (`here`): its tab shows it; another's is followed or opened.
  const open = () => (r.here && r.task_id ? store.select(r.task_id)
    : live && r.task_id ? store.followBackground(r.id, r.task_id, r.task) : r.task_id && store.openBackground(r.task_id));
  const verb = r.here ? "Show" : live ? "Follow" : "Open";
  const stop = async () => {
    try {
      const said = await api.post(`/api/background/${enc(r.id)}/stop`);
      store.notify(said.message);
    } catch (e) {
      store.notify(errorText(e), true);
    }
    changed();
  };
  return html`<li class="history-item" aria-label=${r.task}>
    <div class="history-top"><span>${new Date(r.started * 1000).toLocaleString()}</span><span class=${`status ${r.status}`} aria-label=${`Status of ${r.id}`}>${r.status}</span></div>
    <div class="history-open">${r.task}</div>
    <div class="history-meta"><code>${r.id}</code><span class="muted">${r.here ? "this page" : r.front_end}</span><span>$${(r.cost || 0).toFixed(4)}</span><span>${r.workspace}</span></div>
    ${r.question ? html`<div class="warn">Waiting for: ${r.question}</div>` : r.reason && r.status !== "completed" ? html`<div class="muted">${r.reason}</div>` : null}
    ${r.ask ? html`<${AnswerBox} store=${store} r=${r} ask=${r.ask} changed=${changed} />` : null}
    <div class="history-meta">
      ${r.task_id ? html`<button type="button" aria-label=${`${verb} ${r.id}`} onClick=${() => Promise.resolve(open()).catch((e) => store.notify(errorText(e), true))}>${verb}</button>` : null}
      ${live ? html`<button type="button" aria-label=${`Stop ${r.id}`} onClick=${stop}>Stop</button>` : null}
    </div>
  </li>`;
}

/** The background task's open question: what it would do (the diff, the command), its buttons
 * and a reply box.
 * @param {{ store: Store, r: BgTask, ask: BgAsk, changed: () => void }} props */
function AnswerBox({ store, r, ask, changed }) {
  const [reply, setReply] = useState("");
  const send = async (/** @type {string | null} */ option) => {
    try {
      await api.post(`/api/background/${enc(r.id)}/answer`, { question_id: ask.question_id, option, text: reply });
      store.notify(`Answered ${r.id}.`);
    } catch (e) {
      store.notify(errorText(e), true);
    }
    changed();
  };
  let preview = null;
  if (ask.preview && toolFacts(ask.tool || "").effect === "execute") preview = html`<${CodeBlock} code=${ask.preview} lang="sh" label="Command" />`;
  else if (ask.preview) preview = html`<div class="diff-head"><${Counts} ...${diffCounts(ask.preview)} /></div><${Diff} diff=${ask.preview} label="Proposed changes" />`;
  return html`${preview}<div class="history-meta" role="group" aria-label=${`Answer ${r.id}`}>
    ${ask.options.map((o) => html`<button type="button" class=${o.id === "deny" ? "secondary" : "primary"} onClick=${() => send(o.id)}>${o.label}</button>`)}
    <input aria-label=${`Reply to ${r.id}`} placeholder="Type a reply (goes with the button you click)…" value=${reply}
      onInput=${(/** @type {Event} */ e) => setReply(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
    <button type="button" aria-label=${`Send reply to ${r.id}`} onClick=${() => reply.trim() && send(null)}>Send reply</button>
  </div>`;
}

/** @param {{ store: Store, changed: () => void }} props */
function WorktreeForms({ store, changed }) {
  const [name, setName] = useState("");
  const [carry, setCarry] = useState(false);
  const [task, setTask] = useState("");
  /** @param {Event} e */
  const create = async (e) => {
    e.preventDefault();
    try {
      const w = await api.post("/api/worktrees", { name: name.trim() || null, carry });
      setName("");
      store.notify(`Created ${w.branch} at ${w.path}.`);
    } catch (err) {
      store.notify(errorText(err), true);
    }
    changed();
  };
  // `pycline --worktree`: the task runs in a new worktree on its own branch, in a tab like any other.
  /** @param {Event} e */
  const startIn = async (e) => {
    e.preventDefault();
    if (!task.trim()) return;
    try {
      const r = await api.post("/api/worktrees/task", { task: task.trim(), name: name.trim() || null, carry, mode: store.mode });
      setTask("");
      setName("");
      store.notify(`Working in ${r.worktree.path} on ${r.worktree.branch}.`);
      store.select(r.task_id);
    } catch (err) {
      store.notify(errorText(err), true);
      changed();
    }
  };
  return html`<form class="filters" onSubmit=${create}>
      <input aria-label="Worktree name" placeholder="name (optional)" value=${name} onInput=${(/** @type {Event} */ e) => setName(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
      <label><input type="checkbox" checked=${carry} onChange=${(/** @type {Event} */ e) => setCarry(/** @type {HTMLInputElement} */ (e.currentTarget).checked)} /> Carry uncommitted changes</label>
      <button type="submit">Create worktree</button>
    </form>
    <form class="filters" onSubmit=${startIn}>
      <input aria-label="Worktree task" placeholder="A task to run in a new worktree (optional)…" value=${task} onInput=${(/** @type {Event} */ e) => setTask(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
      <button type="submit" class="primary">Start in a new worktree</button>
    </form>`;
}

/** @param {{ store: Store, w: Worktree, changed: () => void }} props */
function TreeItem({ store, w, changed }) {
  const name = enc(w.name);
  const changes = async () => {
    /** @type {{ files: { status: string, path: string, added: number | null, removed: number | null }[], commits: number, diff: string }} */
    let r;
    try {
      r = await api.get(`/api/worktrees/${name}/changes`);
    } catch (e) {
      return store.notify(errorText(e), true);
    }
    store.openDialog(`Changes in ${w.name}`, () => r.files.length
      ? html`<p>${count(r.files.length, "file")} changed in ${count(r.commits, "commit")}</p>
        <ul aria-label="Changed files">${r.files.map((f) => html`<li><code>${f.status} ${f.path}</code> ${f.added === null ? html`<span class="muted">binary</span>` : html`<${Counts} added=${f.added} removed=${f.removed || 0} />`}</li>`)}</ul>
        <${Diff} diff=${r.diff} />`
      : html`<p>No changes.</p>`);
  };
  const finish = async (/** @type {"merge" | "discard"} */ choice) => {
    try {
      const r = await api.post(`/api/worktrees/${name}/${choice}`);
      const m = r.merge;
      if (choice === "discard") store.notify("Discarded.");
      else if (m.kind === "merged") store.notify(`Merged into ${m.target} (${m.how}).`);
      else if (m.kind === "conflict") store.notify(`Not merged: conflicts with ${m.target} in ${m.files.join(", ")}. The branch is kept.`, true);
      else store.notify(`Not merged: ${m.reason}.`, true);
    } catch (e) {
      store.notify(errorText(e), true);
    }
    changed();
  };
  return html`<li class="history-item" aria-label=${w.name}>
    <div class="history-top"><strong>${w.name}</strong><span>${new Date(w.created * 1000).toLocaleString()}</span></div>
    <div class="history-meta"><code>${w.branch}</code><span>from ${w.target || w.base.slice(0, 10)}</span><span>${w.path}</span></div>
    <div class="history-meta">
      <button type="button" aria-label=${`Changes in ${w.name}`} onClick=${changes}>Changes</button>
      <button type="button" aria-label=${`Merge ${w.name}`} onClick=${() => finish("merge")}>Merge</button>
      <button type="button" aria-label=${`Discard ${w.name}`} onClick=${() => confirm(`Discard ${w.branch} and its worktree?`) && finish("discard")}>Discard</button>
    </div>
  </li>`;
}
