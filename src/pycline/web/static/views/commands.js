// pycline's own slash commands, run by the page: the list is the server's (the terminal's /help
// lists the same, from pycline/app/slash_commands.py); Cline's commands and workflows go to the
// model with the message, where the agent expands them.

import { html } from "../lib/html.js";
import { api, enc } from "../lib/api.js";
import { errorText } from "../lib/store.js";
import { openModelPicker } from "./models.js";
import { restoreAsking, showProcesses, viewChanges } from "./task_actions.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {import("../types/page").SlashCommandInfo} SlashCommandInfo
 */

const LIVE = new Set(["running", "waiting"]);
const TITLES = { pycline: "Commands", cline: "Cline commands", workflow: "Workflows" };

/** The commands as the server lists them now (workflows come and go with their files).
 * @param {Store} store
 * @returns {Promise<SlashCommandInfo[]>} */
export async function loadCommands(store) {
  try {
    store.commands = await api.get("/api/commands");
  } catch {
    /* the last list still helps */
  }
  return store.commands;
}

/** Run `text` if it is one of pycline's own commands; false otherwise (it goes to the model).
 * @param {Store} store
 * @param {string} text */
export function runCommand(store, text) {
  const match = /^\/([\w.-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return false;
  const [, name, rest = ""] = match;
  const command = store.commands.find((c) => c.name === name);
  if (!command || command.source !== "pycline") return false;
  const run = RUN[name];
  if (!run) return false;
  Promise.resolve(run(store, rest.trim())).catch((e) => store.notify(errorText(e), true));
  return true;
}

/** @param {Store} store */
function live(store) {
  const t = store.shown;
  return t && LIVE.has(t.status) && !t.background ? t : null;
}

/** @type {Record<string, (store: Store, args: string) => unknown>} */
const RUN = {
  help: (store) => store.openDialog("Commands", () => html`<${CommandList} commands=${store.commands} />`),
  model: async (store, args) => {
    const t = live(store);
    if (!args) return t ? openModelPicker(store, t.taskId) : store.show("settings");
    if (!t) {
      store.notify("No running task: choose the model for new tasks in Settings.", true);
      return store.show("settings");
    }
    const [first, ...more] = args.split(/\s+/);
    const mode = first === "plan" || first === "act" ? first : "both";
    const model = mode === "both" ? args : more.join(" ");
    await store.request("set_model", t.taskId, { mode, model });
    store.notify(`${mode === "both" ? "Plan and Act" : mode === "plan" ? "Plan" : "Act"} now use ${model}.`);
  },
  plan: (store) => store.setMode("plan"),
  act: (store) => {
    const t = store.shown;
    // At the plan's question, /act carries the plan out, as its Act button does.
    if (t?.question?.kind === "plan" && t.status === "waiting") return store.choose("act");
    store.setMode("act");
  },
  new: (store) => store.newTask(),
  clear: (store) => store.newTask(),
  cost: (store) => {
    const t = store.shown;
    if (!t) return store.notify("No task on screen.");
    const u = t.usage;
    store.notify(`Tokens ↑${u.input} ↓${u.output} · cache +${u.cacheWrites} → ${u.cacheReads} · $${u.cost.toFixed(4)}`);
  },
  undo: (store) => {
    const t = store.shown;
    if (!t) return store.notify("No task on screen.", true);
    if (live(store) && t.status === "running") return store.notify("Stop this task first (Cancel), then /undo.", true);
    const marks = t.rows.filter((r) => r.type === "checkpoint" && r.commit);
    // The newest checkpoint follows the last step: the one before it is where the step began.
    const before = marks.length > 1 ? marks[marks.length - 2] : marks[0];
    if (!before?.commit) return store.notify("This task has no checkpoint to go back to.", true);
    return restoreAsking(store, t.taskId, before.commit, "both");
  },
  diff: (store) => {
    const t = store.shown;
    return t ? viewChanges(store, t) : store.notify("No task on screen.", true);
  },
  history: (store) => store.show("history"),
  resume: async (store, args) => {
    let id = args;
    if (!id) {
      const [latest] = await api.get("/api/history?sort=newest&workspace=1");
      if (!latest) return store.notify("No saved task in this folder.", true);
      id = latest.id;
    }
    return store.resume(id);
  },
  compact: (store) => {
    const t = live(store);
    if (!t) return store.notify("Nothing to condense here: no running task.", true);
    store.command("compact", t.taskId);
  },
  ps: (store) => {
    const t = live(store);
    return t ? showProcesses(store, t.taskId) : store.notify("No running task.", true);
  },
  stop: async (store, args) => {
    const t = live(store);
    if (!t) return store.notify("No running task.", true);
    if (!/^\d+$/.test(args)) return store.notify("Usage: /stop N (the number /ps shows).", true);
    await api.post(`/api/tasks/${enc(t.taskId)}/processes/${args}/stop`);
    store.notify(`Stopped process ${args}.`);
  },
  settings: (store) => store.show("settings"),
};

/** @param {{ commands: SlashCommandInfo[] }} props */
function CommandList({ commands }) {
  return html`${(/** @type {const} */ (["pycline", "cline", "workflow"])).map((source) => {
    const group = commands.filter((c) => c.source === source);
    return group.length ? html`<h3>${TITLES[source]}</h3><dl class="commands">
      ${group.map((c) => html`<dt><code>${c.usage}</code></dt><dd>${c.help}</dd>`)}</dl>` : null;
  })}`;
}
