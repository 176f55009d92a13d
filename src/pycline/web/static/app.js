// The application: logs in with the token from the URL fragment, keeps one WebSocket to the
// server (reconnecting and replaying after a drop or a reload), holds every task's transcript,
// and switches between the chat, history, settings and MCP screens.

import { Transcript } from "./transcript.js";
import { ChatView } from "./chat.js";
import { HistoryView } from "./history.js";
import { SettingsView } from "./settings.js";
import { McpView } from "./mcp.js";
import { ParallelView } from "./parallel.js";
import { h, button } from "./render.js";
import { setTools } from "./tools.js";

// The session credential lives in this origin's storage and travels as a header: never a
// cookie, which the browser would also send to every other port of this host (a dev server).
const SESSION_KEY = "pycline-session";
const session = {
  get: () => localStorage.getItem(SESSION_KEY),
  set: (value) => localStorage.setItem(SESSION_KEY, value),
  headers: () => {
    const value = localStorage.getItem(SESSION_KEY);
    return value ? { Authorization: `Bearer ${value}` } : {};
  },
};

export const api = {
  async get(path) {
    const r = await fetch(path, { credentials: "omit", headers: session.headers() });
    if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error || r.statusText);
    return r.json();
  },
  async post(path, body = {}) {
    const r = await fetch(path, { method: "POST", credentials: "omit", headers: { "Content-Type": "application/json", ...session.headers() }, body: JSON.stringify(body) });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  },
  // A file the user saves (an export): fetched with the credential, handed over as a blob.
  async download(path, name) {
    const r = await fetch(path, { credentials: "omit", headers: session.headers() });
    if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error || r.statusText);
    const url = URL.createObjectURL(await r.blob());
    const a = h("a", { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  },
};

class App {
  constructor(root) {
    this.root = root;
    this.transcripts = new Map();
    this.summaries = new Map();
    this.current = null; // task id shown in the chat
    this.mode = "act";
    this.models = {};
    this.workspace = "";
    this.ws = null;
    this.retry = 250;
    this.pending = new Map();
    this.outbox = []; // actions taken while (re)connecting go out once the socket is open
    this.requestId = 0;
    this.build();
  }

  build() {
    const nav = h("nav", { class: "navbar", "aria-label": "Main" },
      h("span", { class: "brand", text: "pycline" }),
      button("New Task", () => this.newTask(), { "aria-label": "New Task" }),
      button("MCP Servers", () => this.show("mcp"), { "aria-label": "MCP Servers" }),
      button("History", () => this.show("history"), { "aria-label": "History" }),
      button("Parallel Tasks", () => this.show("parallel"), { "aria-label": "Parallel Tasks" }),
      button("Settings", () => this.show("settings"), { "aria-label": "Settings" }));
    this.tabs = h("div", { class: "tabs", role: "tablist", "aria-label": "Tasks" });
    this.toast = h("div", { class: "toast", role: "status", "aria-live": "polite", "aria-label": "Notifications" });
    this.main = h("main", { class: "main" });
    this.root.append(nav, this.tabs, this.main, this.toast);
    this.views = {
      chat: new ChatView(this),
      history: new HistoryView(this),
      settings: new SettingsView(this),
      mcp: new McpView(this),
      parallel: new ParallelView(this),
    };
    for (const v of Object.values(this.views)) this.main.append(v.el);
    this.show("chat");
  }

  show(name) {
    this.screen = name;
    for (const [key, v] of Object.entries(this.views)) {
      v.el.hidden = key !== name;
      if (key === name && v.opened) v.opened();
    }
  }

  notify(text, error = false) {
    this.toast.textContent = text;
    this.toast.classList.toggle("error", error);
    this.toast.classList.add("visible");
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => this.toast.classList.remove("visible"), 4000);
  }

  transcript(taskId, run) {
    let t = this.transcripts.get(taskId);
    // A task resumed on the server is a new run: its log starts over, so does the transcript.
    if (!t || (run !== undefined && t.run !== undefined && t.run !== run)) {
      t = new Transcript(taskId);
      this.transcripts.set(taskId, t);
      if (this.current === taskId) this.views?.chat.attach(t);
    }
    if (run !== undefined) t.run = run;
    return t;
  }

  // --- the connection -------------------------------------------------------------------------

  connect() {
    // Browsers cannot put headers on a WebSocket: the credential goes as a subprotocol.
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`, ["pycline", `pycline-session.${session.get() || ""}`]);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 250;
      document.body.dataset.connected = "true";
      for (const data of this.outbox.splice(0)) ws.send(data);
    };
    ws.onmessage = (m) => this.receive(JSON.parse(m.data));
    ws.onclose = () => {
      document.body.dataset.connected = "false";
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 5000);
    };
  }

  raw(action) {
    const data = JSON.stringify(action);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(data);
    else this.outbox.push(data);
  }

  send(action) {
    action.request = ++this.requestId;
    this.raw(action);
    return new Promise((resolve, reject) => this.pending.set(action.request, { resolve, reject }));
  }

  receive(msg) {
    // Replies to commands carry a `kind` (pycline/schema/commands.v1.json); the rest a `type`.
    switch (msg.type ?? msg.kind) {
      case "hello":
        setTools(msg.tools);
        this.models = msg.models;
        this.providers = msg.providers;
        this.workspace = msg.workspace;
        this.views.chat.refreshModel();
        break;
      case "tasks":
        for (const s of msg.tasks) {
          this.summaries.set(s.id, s);
          // The session knows how a run ended (cancelled, failed); events alone cannot tell.
          const t = this.transcripts.get(s.id);
          if (t && t.run === s.run) t.status = s.status;
        }
        if (!this.restored) this.restoreView(msg.tasks);
        // A task on screen that handed off (new_task): its follow-on task takes its place.
        const handed = msg.tasks.find((s) => s.id === this.current && s.next);
        if (handed && this.summaries.has(handed.next)) this.select(handed.next);
        if (this.current) this.views.chat.changed();
        this.renderTabs();
        break;
      case "events": {
        const t = this.transcript(msg.task_id, msg.run);
        t.apply(msg.events);
        const s = this.summaries.get(msg.task_id);
        if (s) s.status = t.status;
        this.renderTabs();
        if (msg.task_id === this.current) this.views.chat.changed();
        break;
      }
      case "started": {
        const p = this.pending.get(msg.request);
        this.pending.delete(msg.request);
        this.select(msg.task_id);
        p?.resolve(msg);
        break;
      }
      case "rejected": {
        const p = this.pending.get(msg.request);
        this.pending.delete(msg.request);
        this.notify(msg.error, true);
        p?.reject(new Error(msg.error));
        break;
      }
      case "accepted": {
        const p = this.pending.get(msg.request);
        this.pending.delete(msg.request);
        p?.resolve(msg);
        break;
      }
    }
  }

  renderTabs() {
    const tabs = [];
    for (const [id, s] of this.summaries) {
      const t = this.transcripts.get(id);
      const status = t ? t.status : s.status;
      const label = `${(s.task || t?.text || id).slice(0, 40)} — ${status}`;
      tabs.push(button(label, () => { this.select(id); }, { role: "tab", "aria-selected": String(id === this.current), class: `tab ${status}`, title: s.task }));
    }
    this.tabs.replaceChildren(...tabs);
    this.tabs.hidden = tabs.length === 0;
  }

  // After a reload: show the task that was on screen (its id is in the address), else a task
  // that is waiting for an answer.
  restoreView(tasks) {
    this.restored = true;
    const wanted = /[#&]task=([\w-]+)/.exec(location.hash)?.[1];
    const pick = tasks.find((t) => t.id === wanted) || tasks.find((t) => t.status === "waiting");
    if (pick && this.current === null && this.screen === "chat") this.select(pick.id);
  }

  select(taskId) {
    this.current = taskId;
    history.replaceState(null, "", taskId ? `#task=${taskId}` : location.pathname);
    this.show("chat");
    this.views.chat.attach(taskId ? this.transcript(taskId) : null);
    this.renderTabs();
  }

  newTask() {
    this.select(null);
  }

  // --- what the chat asks for -----------------------------------------------------------------

  start(text, images) {
    return this.send({ v: 1, kind: "new_task", text, images, mode: this.mode });
  }

  // fields: option, text, images, edited_content (an answer, as in events.v3.json).
  answer(taskId, questionId, { option, text, images, ...rest }) {
    const answer = { option: option || "", text: text || "", images: images || [], ...rest };
    this.raw({ v: 1, kind: "answer", task_id: taskId, question_id: questionId, answer });
  }

  // A command whose outcome the page waits for (the server replies "accepted" or "rejected").
  request(kind, taskId, extra = {}) {
    return this.send({ v: 1, kind, task_id: taskId, ...extra });
  }

  action(kind, taskId, extra = {}) {
    this.raw({ v: 1, kind, task_id: taskId, ...extra });
  }

  async openSaved(taskId) {
    if (this.summaries.has(taskId)) return this.select(taskId);
    return this.openSavedFresh(taskId);
  }

  // `pycline attach`: a running background task's events, live; answers and Cancel go to it.
  followBackground(bgId, taskId, text) {
    const t = new Transcript(taskId);
    t.run = bgId;
    t.background = bgId;
    this.transcripts.set(taskId, t);
    this.summaries.set(taskId, { id: taskId, run: bgId, task: text, status: "running" });
    return this.send({ v: 1, kind: "follow_background", bg_id: bgId, task_id: taskId });
  }

  // A background task's transcript so far; its own process runs it, so it is only shown here.
  openBackground(taskId) {
    return this.openSavedFresh(taskId, "background");
  }

  async openSavedFresh(taskId, status = "saved") {
    const events = await api.get(`/api/history/${encodeURIComponent(taskId)}/transcript`);
    const t = new Transcript(taskId);
    t.apply(events);
    t.status = status;
    t.run = null; // a resumed run's events replace this view
    this.transcripts.set(taskId, t);
    this.select(taskId);
  }

  // An earlier message edited: back to the checkpoint before it, then the new text goes out.
  resend(taskId, edit) {
    this.freshRun(taskId);
    return this.send({ v: 1, kind: "resend", task_id: taskId, ...edit, mode: this.mode });
  }

  freshRun(taskId) {
    const fresh = new Transcript(taskId);
    fresh.run = null; // the next run's events replace it
    this.transcripts.set(taskId, fresh);
    this.summaries.set(taskId, { id: taskId, task: "", status: "running" });
    if (this.current === taskId) this.views.chat.attach(fresh);
  }

  resume(taskId) {
    // The server replays the saved part first, so the old rows make way for a fresh transcript.
    this.freshRun(taskId);
    return this.send({ v: 1, kind: "resume_task", task_id: taskId, mode: this.mode });
  }
}

async function login() {
  const match = /[#&]token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    history.replaceState(null, "", location.pathname); // the token leaves the address bar
    let password = null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = await fetch("/api/login", { method: "POST", credentials: "omit", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: match[1], password }) });
      const data = await r.json().catch(() => ({}));
      if (r.ok && data.session) {
        session.set(data.session);
        return true;
      }
      if (!data.needs_password) break; // a used or expired link: the stored session may do
      password = await askPassword();
      if (password === null) break;
    }
  }
  if (!session.get()) return false;
  const probe = await fetch("/api/state", { credentials: "omit", headers: session.headers() });
  return probe.ok;
}

function askPassword() {
  return new Promise((resolve) => {
    const input = h("input", { type: "password", "aria-label": "Password" });
    const form = h("form", { class: "login" }, h("label", { text: "Password" }), input, button("Log in", () => resolve(input.value), { type: "submit" }));
    form.addEventListener("submit", (e) => { e.preventDefault(); form.remove(); resolve(input.value); });
    document.body.append(form);
    input.focus();
  });
}

const root = document.getElementById("app");
login().then((ok) => {
  if (!ok) {
    root.append(h("div", { class: "locked", role: "alert", text: "Not logged in. Open the address that `pycline ui` printed (each works once, for 2 minutes; press Enter where pycline ui runs for a new one)." }));
    return;
  }
  const app = new App(root);
  window.pycline = app;
  app.connect();
});
