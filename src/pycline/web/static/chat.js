// The chat screen: task header, the virtualised transcript, the buttons of the open question,
// and the input box (Enter sends, Shift+Enter newline, images, @ and / menus, Plan/Act, model).

import { VirtualList } from "./vlist.js";
import { renderRow, h, button } from "./render.js";
import { InputBox } from "./input.js";
import { api } from "./app.js";
import { diffLines } from "./highlight.js";

const fmt = (n) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

export class ChatView {
  constructor(app) {
    this.app = app;
    this.transcript = null;
    this.unlisten = null;
    this.el = h("section", { class: "chat", "aria-label": "Chat" });
    this.header = h("header", { class: "task-header", "aria-label": "Task" });
    this.welcome = this.buildWelcome();
    this.listBox = h("div", { class: "list-box" });
    this.list = new VirtualList(this.listBox, {
      label: "Messages",
      render: (row) => renderRow(row, {
        compare: (c) => this.compare(c), restore: (c, m) => this.restore(c, m), viewChanges: () => this.viewChanges(),
        checkpointBefore: (r) => this.checkpointBefore(r), edit: (r, on) => this.editMessage(r, on),
        resend: (r, commit, restore, text) => this.app.resend(this.transcript.taskId, { ts: r.ts, original: r.original ?? r.text, commit: commit || "", restore, text }),
        relayout: () => this.list.schedule(),
      }),
    });
    this.quoteButton = button("Quote", () => this.quote(), { class: "quote-button primary", hidden: true, "aria-label": "Quote selection" });
    this.quoteButton.addEventListener("mousedown", (e) => e.preventDefault()); // keep the selection
    document.addEventListener("selectionchange", () => this.selectionChanged());
    this.actions = h("div", { class: "actions", role: "group", "aria-label": "Actions" });
    this.input = new InputBox(app, { send: (text, images) => this.submit(text, images) });
    this.el.append(this.header, this.welcome, this.listBox, this.actions, this.input.el, this.quoteButton);
    this.attach(null);
  }

  buildWelcome() {
    this.recent = h("ul", { class: "recent", "aria-label": "Recent tasks" });
    const suggestions = ["Explain this project's structure", "Find and fix a bug in the tests", "Add a README section on how to run it"];
    return h("div", { class: "welcome" },
      h("h1", { text: "What can I do for you?" }),
      h("p", { class: "muted", text: "Describe a task. Cline-style approvals keep you in control of every edit and command." }),
      h("div", { class: "suggestions" }, ...suggestions.map((s) => button(s, () => this.input.setText(s), { class: "suggestion" }))),
      this.recentBox = h("div", { hidden: true }, h("h2", { text: "Recent" }), this.recent,
        button("View All", () => this.app.show("history"), { class: "link" })));
  }

  async loadRecent() {
    try {
      const rows = await api.get("/api/history?sort=newest&workspace=1");
      this.recent.replaceChildren(...rows.slice(0, 3).map((r) => h("li", {}, button(r.task.slice(0, 80), () => this.app.openSaved(r.id), { class: "link" }))));
      this.recentBox.hidden = rows.length === 0;
    } catch { /* history is optional on the welcome screen */ }
  }

  opened() {
    if (!this.transcript) this.loadRecent();
  }

  refreshModel() {
    this.input.setModel(this.app.models, this.app.mode);
  }

  attach(transcript) {
    this.unlisten?.();
    this.transcript = transcript;
    this.welcome.hidden = !!transcript;
    this.listBox.hidden = !transcript;
    this.header.hidden = !transcript;
    if (transcript) {
      this.unlisten = transcript.on(() => this.changed());
      this.list.stick = true;
      this.list.setRows(transcript.rows);
    } else {
      this.list.setRows([]);
      this.loadRecent();
    }
    this.changed();
  }

  changed() {
    const t = this.transcript;
    if (t) this.list.setRows(t.rows);
    this.refreshModel();
    this.renderHeader();
    this.renderActions();
  }

  renderHeader() {
    const t = this.transcript;
    if (!t) return;
    const u = t.usage;
    const key = JSON.stringify([t.taskId, t.text, t.status, u]);
    if (key === this.headerKey) return; // stream chunks change nothing here
    this.headerKey = key;
    const share = u.window ? Math.min(1, u.context / u.window) : 0;
    const fill = h("div", { class: "context-fill" });
    fill.style.width = `${(share * 100).toFixed(1)}%`; // CSSOM, which the page's CSP allows
    const bar = h("div", { class: "context-bar", role: "progressbar", "aria-label": "Context window", "aria-valuemin": "0", "aria-valuemax": String(u.window || 0), "aria-valuenow": String(u.context || 0), title: `Prompt ${u.input} · Completion ${u.output} · Cache writes ${u.cacheWrites} · Cache reads ${u.cacheReads}` }, fill);
    this.header.replaceChildren(
      h("div", { class: "task-line" }, h("span", { class: "task-text", text: t.text || "Task" }), h("span", { class: "cost", "aria-label": "Cost", text: `$${u.cost.toFixed(4)}` })),
      h("div", { class: "stats" },
        h("span", { "aria-label": "Tokens in", text: `↑ ${fmt(u.input)}` }),
        h("span", { "aria-label": "Tokens out", text: `↓ ${fmt(u.output)}` }),
        h("span", { "aria-label": "Cache", text: `Cache: +${fmt(u.cacheWrites)} → ${fmt(u.cacheReads)}` }),
        h("span", { class: "context-label", text: `${fmt(u.context)} / ${fmt(u.window)}` }), bar,
        button("Compact", () => this.compact(), { "aria-label": "Compact Task", disabled: t.background || !["running", "waiting"].includes(t.status) }),
        button("Processes", () => this.showProcesses(), { "aria-label": "Background processes", disabled: t.background || !["running", "waiting"].includes(t.status) }),
        h("span", { class: `status ${t.status}`, text: t.status })));
  }

  renderActions() {
    const t = this.transcript;
    const tool = t?.lastTool();
    const key = t ? JSON.stringify([t.taskId, t.status, t.streaming, t.question?.id, tool?.id, tool?.done, tool?.partial]) : "";
    if (key === this.actionsKey && t) return;
    this.actionsKey = key;
    const buttons = [];
    if (t) {
      const q = t.question;
      if (q && t.status === "waiting") {
        for (const o of q.options || []) buttons.push(button(o.label, () => this.choose(o.id), { class: o.secondary ? "secondary" : "primary" }));
      } else if (t.status === "running") {
        if (t.streaming) buttons.push(h("span", { class: "thinking", role: "status", "aria-label": "Model status", text: "Thinking…" }));
        const tool = t.lastTool();
        if (tool && tool.tool === "execute_command" && !tool.done && !tool.partial && !t.background) {
          buttons.push(button("Proceed While Running", () => this.app.action("proceed", t.taskId), { class: "primary" }));
        }
        buttons.push(button("Cancel", () => this.app.action("cancel", t.taskId), { class: "secondary" }));
      } else if (t.status === "saved" || t.status === "cancelled" || t.status === "failed") {
        buttons.push(button("Resume Task", () => this.app.resume(t.taskId), { class: "primary" }));
        buttons.push(button("Start New Task", () => this.app.newTask(), { class: "secondary" }));
      } else if (t.status === "completed") {
        buttons.push(button("Start New Task", () => this.app.newTask(), { class: "primary" }));
      }
    }
    this.actions.replaceChildren(...buttons);
    this.actions.hidden = buttons.length === 0;
    const canType = !t || t.status !== "running";
    this.input.setEnabled(canType, t && t.status === "waiting" ? (t.question?.kind === "completion" ? "Type feedback to continue the task…" : "Type a reply (goes along with the button you click)…") : "Type your task here (@ for context, / for commands)…");
  }

  choose(optionId) {
    const t = this.transcript;
    const q = t.question;
    const { text, images } = this.input.take();
    const fields = { option: optionId, text, images };
    if (q.kind === "approval" && optionId === "approve") {
      const row = t.rows.find((r) => r.questionId === q.id);
      if (row && row.edited !== undefined && row.edited !== row.content) fields.edited_content = row.edited;
    }
    this.app.answer(t.taskId, q.id, fields);
    if (q.kind === "completion" && optionId === "accept") this.app.newTask();
  }

  submit(text, images) {
    const t = this.transcript;
    if (t && ["running", "waiting"].includes(t.status) && text === "/compact") {
      this.app.action("compact", t.taskId);
      return true;
    }
    if (t && t.status === "waiting" && t.question) {
      this.app.answer(t.taskId, t.question.id, { option: null, text, images });
      return true;
    }
    if (t && t.status === "running") return false;
    this.app.start(text, images);
    return true;
  }

  // The user message's restore point: the newest checkpoint before it.
  checkpointBefore(row) {
    const rows = this.transcript?.rows || [];
    for (let i = row.index - 1; i >= 0; i--) if (rows[i].type === "checkpoint" && rows[i].commit) return rows[i].commit;
    return null;
  }

  editMessage(row, on) {
    row.editing = on;
    row.draft = undefined;
    row.version++;
    this.list.setRows(this.transcript.rows);
  }

  // Text selected in the transcript can be quoted into the reply (Cline's QuoteButton).
  selectionChanged() {
    const sel = document.getSelection();
    const text = sel && sel.rangeCount ? sel.toString().trim() : "";
    if (!text || !this.listBox.contains(sel.anchorNode) || this.el.hidden) {
      this.quoteButton.hidden = true;
      return;
    }
    this.quoted = text;
    const rect = sel.getRangeAt(0).getBoundingClientRect();
    this.quoteButton.style.top = `${Math.max(0, rect.top - 34)}px`;
    this.quoteButton.style.left = `${Math.max(0, rect.left)}px`;
    this.quoteButton.hidden = false;
  }

  quote() {
    this.input.quote(this.quoted || "");
    this.quoteButton.hidden = true;
    document.getSelection()?.removeAllRanges();
  }

  compact() {
    if (!confirm("Compact this task? The conversation so far is replaced by a summary.")) return;
    this.app.action("compact", this.transcript.taskId);
  }

  async showProcesses() {
    const id = encodeURIComponent(this.transcript.taskId);
    const list = h("ul", { class: "processes", "aria-label": "Background processes" });
    const load = async () => {
      const rows = await api.get(`/api/tasks/${id}/processes`).catch(() => []);
      list.replaceChildren(...(rows.length ? rows.map((p) => h("li", {},
        h("code", { text: p.command }), " ",
        h("span", { class: "muted", text: p.running ? "running" : `exited (${p.exit_code})` }), " ",
        p.running ? button("Stop", async () => { await api.post(`/api/tasks/${id}/processes/${p.id}/stop`).catch((e) => this.app.notify(e.message, true)); load(); }, { "aria-label": `Stop ${p.command}` }) : null))
        : [h("li", { class: "muted", text: "No background processes." })]));
    };
    await load();
    dialog("Background processes", [list]);
  }

  // Everything the task changed: the workspace now against its first checkpoint.
  viewChanges() {
    const first = this.transcript.rows.find((r) => r.type === "checkpoint" && r.commit);
    if (!first) return this.app.notify("This task has no checkpoint to compare with.", true);
    return this.compare(first.commit, "Changes made by this task");
  }

  async compare(commit, title = "Changes since checkpoint") {
    const id = this.transcript.taskId;
    let changes;
    try {
      changes = await api.get(`/api/tasks/${encodeURIComponent(id)}/checkpoints/${commit}/compare`);
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    const body = changes.length ? changes.map((c) => {
      const code = h("code");
      diffLines(code, c.diff);
      return h("details", { open: true }, h("summary", {}, h("span", { text: c.path }), " ", h("span", { class: "plus", text: `+${c.added}` }), " ", h("span", { class: "minus", text: `−${c.removed}` })), h("pre", { class: "diff" }, code));
    }) : [h("p", { text: "No changes since this checkpoint." })];
    dialog(title, body);
  }

  async restore(commit, mode) {
    const t = this.transcript;
    try {
      const result = await api.post(`/api/tasks/${encodeURIComponent(t.taskId)}/checkpoints/${commit}/restore`, { mode });
      const parts = [];
      if (result.written !== undefined) parts.push(`${result.written} files written, ${result.deleted} deleted`);
      if (result.messages_removed !== undefined) parts.push(`${result.messages_removed} messages removed`);
      this.app.notify(`Restored: ${parts.join("; ")}.`);
      if (mode !== "workspace") {
        t.status = "cancelled";
        await this.app.openSavedFresh(t.taskId);
      }
    } catch (e) {
      this.app.notify(e.message, true);
    }
  }
}

export function dialog(title, children) {
  const close = () => d.remove();
  const d = h("div", { class: "dialog-backdrop" },
    h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-label": title },
      h("div", { class: "dialog-head" }, h("h2", { text: title }), button("Close", close, { "aria-label": "Close" })),
      h("div", { class: "dialog-body" }, ...children)));
  d.addEventListener("keydown", (e) => { if (e.key === "Escape") close(); });
  document.body.append(d);
  d.querySelector("button")?.focus();
  return d;
}
