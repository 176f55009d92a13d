// Parallel Tasks: the background tasks of this user (`pycline tasks`: status, cost, what each
// waits for; start one, answer it, open its transcript, stop it) and this repository's worktree
// tasks (`pycline worktree`: create, list, changes, merge, discard).

import { h, button } from "./render.js";
import { api } from "./app.js";
import { dialog } from "./chat.js";
import { diffLines } from "./highlight.js";

const FINISHED = new Set(["completed", "failed", "cancelled"]);
const POLL_MS = 1500; // background tasks are other processes: their state is in files, read again

export class ParallelView {
  constructor(app) {
    this.app = app;
    this.task = h("input", { "aria-label": "Background task", placeholder: "A task to run in the background…" });
    this.tasks = h("ul", { class: "history-list", "aria-label": "Background tasks" });
    this.name = h("input", { "aria-label": "Worktree name", placeholder: "name (optional)" });
    this.treeTask = h("input", { "aria-label": "Worktree task", placeholder: "A task to run in a new worktree (optional)…" });
    this.carry = h("input", { type: "checkbox", id: "wt-carry" });
    this.trees = h("ul", { class: "history-list", "aria-label": "Worktrees" });
    this.treeNote = h("p", { class: "muted" });
    const startForm = h("form", { class: "filters" }, this.task, button("Start in background", undefined, { type: "submit", class: "primary" }));
    startForm.addEventListener("submit", (e) => { e.preventDefault(); this.start(); });
    const treeForm = h("form", { class: "filters" }, this.name,
      h("label", { for: "wt-carry" }, this.carry, " Carry uncommitted changes"),
      button("Create worktree", undefined, { type: "submit" }));
    const treeTaskForm = h("form", { class: "filters" }, this.treeTask, button("Start in a new worktree", undefined, { type: "submit", class: "primary" }));
    treeTaskForm.addEventListener("submit", (e) => { e.preventDefault(); this.startInWorktree(); });
    treeForm.addEventListener("submit", (e) => { e.preventDefault(); this.create(); });
    this.el = h("section", { class: "history parallel", "aria-label": "Parallel Tasks" },
      h("div", { class: "view-head" }, h("h1", { text: "Parallel Tasks" }), button("Done", () => app.show("chat"))),
      h("h2", { text: "Background tasks" }), startForm, this.tasks,
      h("h2", { text: "Worktrees" }), treeForm, treeTaskForm, this.treeNote, this.trees);
  }

  opened() {
    this.loadTrees();
    this.poll();
  }

  async poll() {
    clearTimeout(this.timer);
    if (this.el.hidden) return;
    await this.loadTasks();
    this.timer = setTimeout(() => this.poll(), POLL_MS);
  }

  // --- background tasks ----------------------------------------------------------------------

  async loadTasks() {
    let rows;
    try {
      rows = await api.get("/api/background");
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    const key = JSON.stringify(rows);
    if (key === this.tasksKey) return; // unchanged: keep what is being typed in a reply box
    this.tasksKey = key;
    this.tasks.replaceChildren(...(rows.length ? rows.map((r) => this.taskItem(r)) : [h("li", { class: "muted", text: "No background tasks." })]));
  }

  taskItem(r) {
    const when = new Date(r.started * 1000).toLocaleString();
    const parts = [
      h("div", { class: "history-top" }, h("span", { text: when }), h("span", { class: `status ${r.status}`, "aria-label": `Status of ${r.id}`, text: r.status })),
      h("div", { class: "history-open", text: r.task }),
      h("div", { class: "history-meta" }, h("code", { text: r.id }), h("span", { class: "muted", text: r.front_end }), h("span", { text: `$${(r.cost || 0).toFixed(4)}` }), h("span", { text: r.workspace })),
    ];
    if (r.question) parts.push(h("div", { class: "warn", text: `Waiting for: ${r.question}` }));
    else if (r.reason && r.status !== "completed") parts.push(h("div", { class: "muted", text: r.reason }));
    if (r.ask) parts.push(this.answerBox(r));
    const actions = [];
    const live = !FINISHED.has(r.status);
    const open = () => (live ? this.app.followBackground(r.id, r.task_id, r.task) : this.app.openBackground(r.task_id));
    if (r.task_id) actions.push(button(live ? "Follow" : "Open", open, { "aria-label": `${live ? "Follow" : "Open"} ${r.id}` }));
    if (!FINISHED.has(r.status)) actions.push(button("Stop", () => this.stop(r.id), { "aria-label": `Stop ${r.id}` }));
    parts.push(h("div", { class: "history-meta" }, ...actions));
    return h("li", { class: "history-item", "aria-label": r.task }, ...parts);
  }

  answerBox(r) {
    const reply = h("input", { "aria-label": `Reply to ${r.id}`, placeholder: "Type a reply (goes with the button you click)…" });
    const send = async (option) => {
      try {
        await api.post(`/api/background/${encodeURIComponent(r.id)}/answer`, { question_id: r.ask.question_id, option, text: reply.value });
        this.app.notify(`Answered ${r.id}.`);
      } catch (e) {
        this.app.notify(e.message, true);
      }
      this.tasksKey = null;
      this.loadTasks();
    };
    const options = r.ask.options.map((o) => button(o.label, () => send(o.id), { class: o.id === "deny" ? "secondary" : "primary" }));
    return h("div", { class: "history-meta", role: "group", "aria-label": `Answer ${r.id}` }, ...options, reply,
      button("Send reply", () => reply.value.trim() && send(null), { "aria-label": `Send reply to ${r.id}` }));
  }

  async start() {
    const text = this.task.value.trim();
    if (!text) return;
    try {
      const r = await api.post("/api/background", { task: text });
      this.task.value = "";
      this.app.notify(`Started ${r.id} in the background.`);
    } catch (e) {
      this.app.notify(e.message, true);
    }
    this.tasksKey = null;
    this.loadTasks();
  }

  async stop(id) {
    try {
      const r = await api.post(`/api/background/${encodeURIComponent(id)}/stop`);
      this.app.notify(r.message);
    } catch (e) {
      this.app.notify(e.message, true);
    }
    this.tasksKey = null;
    this.loadTasks();
  }

  // --- worktrees -----------------------------------------------------------------------------

  async loadTrees() {
    let r;
    try {
      r = await api.get("/api/worktrees");
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    this.treeNote.textContent = r.error || "";
    this.trees.replaceChildren(...(r.worktrees.length ? r.worktrees.map((w) => this.treeItem(w)) : [h("li", { class: "muted", text: "No worktree tasks." })]));
  }

  treeItem(w) {
    const name = encodeURIComponent(w.name);
    return h("li", { class: "history-item", "aria-label": w.name },
      h("div", { class: "history-top" }, h("strong", { text: w.name }), h("span", { text: new Date(w.created * 1000).toLocaleString() })),
      h("div", { class: "history-meta" }, h("code", { text: w.branch }), h("span", { text: `from ${w.target || w.base.slice(0, 10)}` }), h("span", { text: w.path })),
      h("div", { class: "history-meta" },
        button("Changes", () => this.changes(w.name), { "aria-label": `Changes in ${w.name}` }),
        button("Merge", () => this.finish(name, "merge"), { "aria-label": `Merge ${w.name}` }),
        button("Discard", () => confirm(`Discard ${w.branch} and its worktree?`) && this.finish(name, "discard"), { "aria-label": `Discard ${w.name}` })));
  }

  async create() {
    try {
      const w = await api.post("/api/worktrees", { name: this.name.value.trim() || null, carry: this.carry.checked });
      this.name.value = "";
      this.app.notify(`Created ${w.branch} at ${w.path}.`);
    } catch (e) {
      this.app.notify(e.message, true);
    }
    this.loadTrees();
  }

  // `pycline --worktree`: the task runs in a new worktree on its own branch, in a tab like any other.
  async startInWorktree() {
    const text = this.treeTask.value.trim();
    if (!text) return;
    try {
      const r = await api.post("/api/worktrees/task", { task: text, name: this.name.value.trim() || null, carry: this.carry.checked, mode: this.app.mode });
      this.treeTask.value = "";
      this.name.value = "";
      this.app.notify(`Working in ${r.worktree.path} on ${r.worktree.branch}.`);
      this.app.select(r.task_id);
    } catch (e) {
      this.app.notify(e.message, true);
      this.loadTrees();
    }
  }

  async changes(name) {
    let r;
    try {
      r = await api.get(`/api/worktrees/${encodeURIComponent(name)}/changes`);
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    const files = h("ul", { "aria-label": "Changed files" }, ...r.files.map((f) =>
      h("li", {}, h("code", { text: `${f.status} ${f.path}` }), " ", f.added === null ? h("span", { class: "muted", text: "binary" }) : h("span", {}, h("span", { class: "plus", text: `+${f.added}` }), " ", h("span", { class: "minus", text: `−${f.removed}` })))));
    const code = h("code");
    diffLines(code, r.diff);
    dialog(`Changes in ${name}`, r.files.length ? [h("p", { text: `${r.files.length} file(s) changed in ${r.commits} commit(s)` }), files, h("pre", { class: "diff" }, code)] : [h("p", { text: "No changes." })]);
  }

  async finish(name, choice) {
    try {
      const r = await api.post(`/api/worktrees/${name}/${choice}`);
      const m = r.merge;
      if (choice === "discard") this.app.notify("Discarded.");
      else if (m.kind === "merged") this.app.notify(`Merged into ${m.target} (${m.how}).`);
      else if (m.kind === "conflict") this.app.notify(`Not merged: conflicts with ${m.target} in ${m.files.join(", ")}. The branch is kept.`, true);
      else this.app.notify(`Not merged: ${m.reason}.`, true);
    } catch (e) {
      this.app.notify(e.message, true);
    }
    this.loadTrees();
  }
}
