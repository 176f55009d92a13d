// The page's state and what the user can do with it: every task's transcript, the tabs, the
// screen shown, the Plan/Act switch, notifications and dialogs. Views read it and call its
// methods; it knows no view (a dialog is a function the view layer passes in).

import { api, enc } from "./api.js";
import { Connection } from "./connection.js";
import { setTools } from "./tools.js";
import { Transcript } from "./transcript.js";

/**
 * @typedef {import("../types/page").TaskSummary} TaskSummary
 * @typedef {import("../types/page").ServerMessage} ServerMessage
 * @typedef {import("../types/page").SlashCommandInfo} SlashCommandInfo
 * @typedef {"chat" | "history" | "settings" | "mcp" | "parallel"} Screen
 * @typedef {{ title: string, body: () => any, id: number }} Dialog
 * @typedef {{ bgId: string, taskId: string, text: string }} FollowedTask
 */

const CLOSED_KEY = "pycline-closed-tabs";
const FOLLOWED_KEY = "pycline-followed";
const LIVE = new Set(["running", "waiting"]);
const PROCESS_POLL_MS = 1500;

/** @param {string} key */
function loadList(key) {
  try {
    const value = JSON.parse(sessionStorage.getItem(key) || "[]");
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

export class Store {
  constructor() {
    /** @type {Map<string, Transcript>} */
    this.transcripts = new Map();
    /** @type {Map<string, TaskSummary>} */
    this.summaries = new Map();
    /** @type {Set<string>} tabs the user closed (their tasks go on; History reopens them) */
    this.closed = new Set(loadList(CLOSED_KEY));
    /** @type {FollowedTask[]} background tasks this page follows, kept across a reload */
    this.followed = loadList(FOLLOWED_KEY);
    /** @type {string | null} the task on screen */
    this.current = null;
    /** @type {Screen} */
    this.screen = "chat";
    /** @type {"act" | "plan"} what the switch says; new tasks start in it */
    this.mode = "act";
    /** @type {{ act?: string, plan?: string }} */
    this.models = {};
    /** @type {string[]} */
    this.providers = [];
    /** @type {SlashCommandInfo[]} the / menu (GET /api/commands) */
    this.commands = [];
    this.workspace = "";
    this.connected = false;
    this.restored = false;
    /** @type {{ text: string, error: boolean, at: number } | null} */
    this.toast = null;
    /** @type {Dialog[]} */
    this.dialogs = [];
    this.dialogId = 0;
    /** What is typed in the input box: it goes along with the button clicked for a question. */
    this.draft = { text: "", images: /** @type {string[]} */ ([]) };
    /** The new task's goal check (a command whose exit 0 alone completes it; "": none). */
    this.verify = "";
    /** The new task runs in auto (sandboxed) mode. */
    this.auto = false;
    /** @type {Set<string>} tasks whose background commands are being watched */
    this.watching = new Set();
    /** @type {Set<() => void>} */
    this.listeners = new Set();
    this.scheduled = false;
    this.connection = new Connection((m) => this.receive(m), (ok) => {
      this.connected = ok;
      document.body.dataset.connected = String(ok); // for whoever drives the page (tests)
      this.changed();
    });
  }

  /** @param {() => void} listener */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Views redraw once per burst of changes. */
  changed() {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      for (const l of this.listeners) l();
    });
  }

  connect() {
    this.connection.connect();
    this.refollow();
    api.get("/api/commands").then((c) => { this.commands = c; }).catch(() => {});
  }

  /** @param {Screen} screen */
  show(screen) {
    this.screen = screen;
    this.changed();
  }

  /** @param {string} text
   * @param {boolean} [error] */
  notify(text, error = false) {
    this.toast = { text, error, at: Date.now() };
    this.changed();
  }

  /** @param {string} title
   * @param {() => any} body */
  openDialog(title, body) {
    const dialog = { title, body, id: ++this.dialogId };
    this.dialogs = [...this.dialogs, dialog];
    this.changed();
    return dialog;
  }

  /** @param {Dialog} dialog */
  closeDialog(dialog) {
    this.dialogs = this.dialogs.filter((d) => d !== dialog);
    this.changed();
  }

  /** @param {string} taskId
   * @param {string} [run] */
  transcript(taskId, run) {
    let t = this.transcripts.get(taskId);
    // A task resumed on the server is a new run: its log starts over, so does the transcript.
    if (!t || (run !== undefined && t.run !== undefined && t.run !== run)) {
      t = new Transcript(taskId);
      this.transcripts.set(taskId, t);
    }
    if (run !== undefined) t.run = run;
    return t;
  }

  get shown() {
    return this.current === null ? null : this.transcripts.get(this.current) || null;
  }

  /** The tabs: the tasks of this server and the background tasks followed, less those closed. */
  tabs() {
    return [...this.summaries.values()].filter((s) => !this.closed.has(s.id));
  }

  // --- from the server ------------------------------------------------------------------------

  /** @param {ServerMessage} msg */
  receive(msg) {
    if ("type" in msg) {
      switch (msg.type) {
        case "hello":
          setTools(msg.tools);
          this.models = msg.models;
          this.providers = msg.providers;
          this.workspace = msg.workspace;
          break;
        case "tasks":
          this.tasksChanged(msg.tasks);
          break;
        case "events": {
          const t = this.transcript(msg.task_id, msg.run);
          t.apply(msg.events);
          // The plan's own "Act" button (or /act elsewhere) moves the switch with the task.
          if (msg.task_id === this.current && msg.events.some((e) => e.kind === "mode_changed")) this.mode = t.mode;
          if (t.rows.some((r) => r.background === "running")) this.watchProcesses(t.taskId);
          break;
        }
        case "started":
          this.closed.delete(msg.task_id);
          this.select(msg.task_id);
          break;
      }
    } else if (msg.kind === "rejected") {
      this.notify(msg.error, true);
    }
    this.changed();
  }

  /** @param {TaskSummary[]} tasks */
  tasksChanged(tasks) {
    for (const s of tasks) {
      const known = this.summaries.get(s.id);
      this.summaries.set(s.id, { ...known, ...s });
      // The session knows how a run ended (cancelled, failed); events alone cannot tell.
      const t = this.transcripts.get(s.id);
      if (t && t.run === s.run && !LIVE.has(s.status)) t.status = s.status;
    }
    this.followMode();
    if (!this.restored) this.restoreView(tasks);
    // A task on screen that handed off (new_task): its follow-on task takes its place.
    const handed = tasks.find((s) => s.id === this.current && s.next);
    if (handed?.next && this.summaries.has(handed.next)) this.select(handed.next);
  }

  /** The switch shows the mode of the live task on screen, as its session has it (after a
   * reload too: replayed events alone may not say, a task started in Plan mode has no switch). */
  followMode() {
    const s = this.current === null ? undefined : this.summaries.get(this.current);
    if (s?.mode && LIVE.has(s.status)) this.mode = s.mode;
  }

  /** After a reload: the task that was on screen (its id is in the address) — one of this
   * server's, a background task this page followed, or a saved one — else one that waits.
   * @param {TaskSummary[]} tasks */
  restoreView(tasks) {
    this.restored = true;
    if (this.current !== null || this.screen !== "chat") return;
    const wanted = /[#&]task=([\w-]+)/.exec(location.hash)?.[1];
    if (wanted && tasks.some((t) => t.id === wanted)) return this.select(wanted);
    if (wanted && this.followed.some((f) => f.taskId === wanted)) return; // `refollow` shows it
    if (wanted) {
      this.openSaved(wanted).catch(() => history.replaceState(null, "", location.pathname));
      return;
    }
    const waiting = tasks.find((t) => t.status === "waiting" && !this.closed.has(t.id));
    if (waiting) this.select(waiting.id);
  }

  // --- what the user does ---------------------------------------------------------------------

  /** @param {string | null} taskId */
  select(taskId) {
    this.current = taskId;
    if (taskId) this.closed.delete(taskId);
    this.saveClosed();
    history.replaceState(null, "", taskId ? `#task=${taskId}` : location.pathname);
    this.screen = "chat";
    if (taskId) this.transcript(taskId);
    this.followMode();
    this.changed();
  }

  newTask() {
    this.select(null);
  }

  /** @param {string} taskId */
  closeTab(taskId) {
    this.closed.add(taskId);
    this.saveClosed();
    if (this.current === taskId) {
      const next = this.tabs().find((s) => s.id !== taskId);
      this.select(next ? next.id : null);
    }
    this.changed();
  }

  saveClosed() {
    sessionStorage.setItem(CLOSED_KEY, JSON.stringify([...this.closed]));
  }

  /** @param {"act" | "plan"} mode */
  setMode(mode) {
    this.mode = mode;
    const t = this.shown;
    if (t && LIVE.has(t.status) && t.mode !== mode && !t.background) this.command("set_mode", t.taskId, { mode });
    this.changed();
  }

  /** Commands left running: their rows say so until the task's process list no longer has them.
   * @param {string} taskId */
  watchProcesses(taskId) {
    if (this.watching.has(taskId)) return;
    this.watching.add(taskId);
    const poll = async () => {
      const t = this.transcripts.get(taskId);
      if (!t || !t.rows.some((r) => r.background === "running")) {
        this.watching.delete(taskId);
        return;
      }
      try {
        this.processesSeen(taskId, await api.get(`/api/tasks/${enc(taskId)}/processes`));
      } catch {
        /* the next poll tries again */
      }
      setTimeout(poll, PROCESS_POLL_MS);
    };
    setTimeout(poll, PROCESS_POLL_MS);
  }

  /** @param {string} taskId
   * @param {{ command: string, running: boolean }[]} processes */
  processesSeen(taskId, processes) {
    const t = this.transcripts.get(taskId);
    if (!t) return;
    for (const row of t.rows) {
      if (row.background !== "running") continue;
      const summary = row.summary || "";
      if (!processes.some((p) => p.running && summary.includes(p.command))) t.markExited(row);
    }
    this.changed();
  }

  /** @param {string} text */
  setDraft(text) {
    this.draft = { ...this.draft, text };
    this.changed();
  }

  takeDraft() {
    const taken = { text: this.draft.text.trim(), images: this.draft.images };
    this.draft = { text: "", images: [] };
    this.changed();
    return taken;
  }

  /** A button of the open question, with what is typed as feedback (and an edited file).
   * @param {string} optionId */
  choose(optionId) {
    const t = this.shown;
    const q = t?.question;
    if (!t || !q) return;
    const { text, images } = this.takeDraft();
    /** @type {{ option: string, text: string, images: string[], edited_content?: string }} */
    const fields = { option: optionId, text, images };
    if (q.kind === "approval" && optionId === "approve") {
      const row = t.rows.find((r) => r.questionId === q.id);
      if (row && row.edited !== undefined && row.edited !== row.content) fields.edited_content = row.edited;
    }
    this.answer(t.taskId, q.id, fields);
    if (q.kind === "completion" && optionId === "accept") this.newTask();
  }

  /** @param {string} text
   * @param {string[]} images */
  start(text, images) {
    const verify = this.verify.trim();
    const extra = { ...(verify ? { verify } : {}), ...(this.auto ? { auto: true } : {}) };
    return this.connection.send({ v: 1, kind: "new_task", text, images, mode: this.mode, ...extra });
  }

  /** fields: option, text, images, edited_content (an answer, as in events.v3.json).
   * @param {string} taskId
   * @param {string} questionId
   * @param {{ option?: string | null, text?: string, images?: string[], edited_content?: string }} fields */
  answer(taskId, questionId, { option, text, images, ...rest }) {
    const answer = { option: option || "", text: text || "", images: images || [], ...rest };
    this.connection.raw({ v: 1, kind: "answer", task_id: taskId, question_id: questionId, answer });
  }

  /** A command to a task (pycline/schema/commands.v1.json); `request` waits for its reply.
   * @param {string} kind
   * @param {string} taskId
   * @param {object} [extra] */
  command(kind, taskId, extra = {}) {
    if (kind === "proceed") this.transcripts.get(taskId)?.markProceeded();
    this.connection.raw({ v: 1, kind, task_id: taskId, ...extra });
  }

  /** @param {string} kind
   * @param {string} taskId
   * @param {object} [extra] */
  request(kind, taskId, extra = {}) {
    return this.connection.send({ v: 1, kind, task_id: taskId, ...extra });
  }

  /** @param {string} taskId */
  async openSaved(taskId) {
    if (this.summaries.has(taskId)) return this.select(taskId);
    return this.openSavedFresh(taskId);
  }

  /** @param {string} taskId
   * @param {"saved" | "background"} [status] */
  async openSavedFresh(taskId, status = "saved") {
    const events = await api.get(`/api/history/${enc(taskId)}/transcript`);
    const t = new Transcript(taskId);
    t.apply(events);
    t.status = status;
    t.run = null; // a resumed run's events replace this view
    this.transcripts.set(taskId, t);
    this.select(taskId);
  }

  /** `pycline attach`: a running background task's events, live; answers and Cancel go to it.
   * @param {string} bgId
   * @param {string} taskId
   * @param {string} text
   * @param {boolean} [show] */
  followBackground(bgId, taskId, text, show = true) {
    const t = new Transcript(taskId);
    t.run = bgId;
    t.background = bgId;
    this.transcripts.set(taskId, t);
    this.summaries.set(taskId, { id: taskId, run: bgId, task: text, status: "running" });
    if (!this.followed.some((f) => f.taskId === taskId)) {
      this.followed = [...this.followed, { bgId, taskId, text }];
      sessionStorage.setItem(FOLLOWED_KEY, JSON.stringify(this.followed));
    }
    this.closed.delete(taskId);
    if (show) this.select(taskId);
    this.changed();
    return this.connection.send({ v: 1, kind: "follow_background", bg_id: bgId, task_id: taskId });
  }

  /** After a reload: follow again the background tasks that still run. */
  async refollow() {
    if (!this.followed.length) return;
    /** @type {{ id: string, task_id: string | null, status: string }[]} */
    let board = [];
    try {
      board = await api.get("/api/background");
    } catch {
      return;
    }
    const live = new Set(board.filter((b) => !["completed", "failed", "cancelled"].includes(b.status)).map((b) => b.id));
    const keep = this.followed.filter((f) => live.has(f.bgId));
    const ended = this.followed.filter((f) => !live.has(f.bgId));
    this.followed = keep;
    sessionStorage.setItem(FOLLOWED_KEY, JSON.stringify(keep));
    const wanted = /[#&]task=([\w-]+)/.exec(location.hash)?.[1];
    for (const f of keep) this.followBackground(f.bgId, f.taskId, f.text, f.taskId === wanted).catch(() => {});
    // One that ended meanwhile is shown as saved.
    if (wanted && this.current === null && ended.some((f) => f.taskId === wanted)) this.openBackground(wanted).catch(() => {});
  }

  /** A background task's transcript so far; its own process runs it, so it is only shown.
   * @param {string} taskId */
  openBackground(taskId) {
    return this.openSavedFresh(taskId, "background");
  }

  /** An earlier message edited: back to the checkpoint before it, then the new text goes out.
   * @param {string} taskId
   * @param {{ ts?: number, original: string, commit: string, restore: "task" | "both", text: string }} edit */
  resend(taskId, edit) {
    this.freshRun(taskId);
    return this.connection.send({ v: 1, kind: "resend", task_id: taskId, ...edit, mode: this.mode });
  }

  /** @param {string} taskId */
  freshRun(taskId) {
    const fresh = new Transcript(taskId);
    fresh.run = null; // the next run's events replace it
    fresh.mode = this.mode;
    this.transcripts.set(taskId, fresh);
    this.summaries.set(taskId, { id: taskId, task: "", status: "running" });
    this.changed();
  }

  /** @param {string} taskId */
  resume(taskId) {
    // The server replays the saved part first, so the old rows make way for a fresh transcript.
    this.freshRun(taskId);
    return this.connection.send({ v: 1, kind: "resume_task", task_id: taskId, mode: this.mode });
  }

  /** Files & Task, Files Only or Task Only, as `pycline restore` does.
   * @param {string} taskId
   * @param {string} commit
   * @param {"both" | "workspace" | "task"} mode */
  async restore(taskId, commit, mode) {
    try {
      const result = await api.post(`/api/tasks/${enc(taskId)}/checkpoints/${commit}/restore`, { mode });
      const parts = [];
      if (result.written !== undefined) parts.push(`${count(result.written, "file")} written, ${result.deleted} deleted`);
      if (result.messages_removed !== undefined) parts.push(`${count(result.messages_removed, "message")} removed`);
      // What it deleted can come back: say from where.
      const undo = result.deleted && result.undo ? ` The files before it are checkpoint ${result.undo.slice(0, 8)}.` : "";
      this.notify(`Restored: ${parts.join("; ")}.${undo}`);
      // The conversation went back too: the task was stopped and is shown as saved.
      if (mode !== "workspace") await this.openSavedFresh(taskId);
    } catch (e) {
      this.notify(errorText(e), true);
    }
  }
}

/** "1 file", "2 files".
 * @param {number} n
 * @param {string} noun */
export function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** @param {unknown} e */
export function errorText(e) {
  return e instanceof Error ? e.message : String(e);
}
