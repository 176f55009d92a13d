// What a task's rows, header and slash commands do beside sending commands: compare and view
// changes (dialogs), the processes dialog, the restore point of a message, a restore that asks
// before it deletes.

import { html } from "../lib/html.js";
import { api, enc } from "../lib/api.js";
import { count, errorText } from "../lib/store.js";
import { Counts, Diff } from "./common.js";
import { ProcessesDialog } from "./processes.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {import("../lib/transcript.js").Transcript} Transcript
 * @typedef {import("../types/page").Row} Row
 */

/** The user message's restore point: the newest checkpoint before it.
 * @param {Transcript} t
 * @param {Row} row */
export function checkpointBefore(t, row) {
  for (let i = row.index - 1; i >= 0; i--) {
    const r = t.rows[i];
    if (r.type === "checkpoint" && r.commit) return r.commit;
  }
  return null;
}

/** Everything the task changed: the workspace now against its first checkpoint.
 * @param {Store} store
 * @param {Transcript} t */
export function viewChanges(store, t) {
  const first = t.rows.find((r) => r.type === "checkpoint" && r.commit);
  if (!first?.commit) return store.notify("This task has no checkpoint to compare with.", true);
  return compare(store, t.taskId, first.commit, "Changes made by this task");
}

/** @param {Store} store
 * @param {string} taskId
 * @param {string} commit
 * @param {string} [title] */
export async function compare(store, taskId, commit, title = "Changes since checkpoint") {
  /** @type {{ path: string, diff: string, added: number, removed: number }[]} */
  let changes;
  try {
    changes = await api.get(`/api/tasks/${enc(taskId)}/checkpoints/${commit}/compare`);
  } catch (e) {
    return store.notify(errorText(e), true);
  }
  store.openDialog(title, () => changes.length
    ? changes.map((c) => html`<details open><summary><span>${c.path}</span> <${Counts} added=${c.added} removed=${c.removed} /></summary><${Diff} diff=${c.diff} /></details>`)
    : html`<p>No changes since this checkpoint.</p>`);
}

/** @param {Store} store
 * @param {string} taskId */
export function showProcesses(store, taskId) {
  store.openDialog("Background processes", () => html`<${ProcessesDialog} store=${store} taskId=${taskId} />`);
}


/** Restore files (and the task): when that deletes files — made after the checkpoint, by hand
 * or by a merge as well as by the task — the page lists them and waits for a yes first.
 * @param {Store} store
 * @param {string} taskId
 * @param {string} commit
 * @param {"both" | "workspace" | "task"} mode */
export async function restoreAsking(store, taskId, commit, mode) {
  if (mode === "task") return store.restore(taskId, commit, mode);
  /** @type {{ path: string, status: string }[]} */
  let changes;
  try {
    changes = await api.get(`/api/tasks/${enc(taskId)}/checkpoints/${commit}/compare`);
  } catch (e) {
    return store.notify(errorText(e), true);
  }
  // Compared with the checkpoint, a file "added" since is one the restore deletes.
  const doomed = changes.filter((c) => c.status === "added").map((c) => c.path);
  if (!doomed.length) return store.restore(taskId, commit, mode);
  const dialog = store.openDialog(`Restoring deletes ${count(doomed.length, "file")}`, () => html`
    <p>These files did not exist at checkpoint <code>${commit.slice(0, 8)}</code>, so restoring it deletes them:</p>
    <ul aria-label="Files to delete">${doomed.map((p) => html`<li><code>${p}</code></li>`)}</ul>
    <p>The files as they are now are kept first, as a checkpoint "before restoring" that this task's
    checkpoints list (<code>pycline checkpoints ${taskId}</code>) and that restores them all.</p>
    <div class="actions" role="group" aria-label="Confirm restore">
      <button type="button" onClick=${() => { store.closeDialog(dialog); store.restore(taskId, commit, mode); }}>Restore and delete ${count(doomed.length, "file")}</button>
      <button type="button" class="secondary" onClick=${() => store.closeDialog(dialog)}>Cancel</button>
    </div>`);
}
