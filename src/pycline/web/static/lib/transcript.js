// A task's transcript: wire events folded into rows. Streaming touches only the last rows, and
// each change bumps that row's version, so a view redraws one row, never the whole task.
// A checkpoint is made while the next reply streams, so its event can arrive after later rows:
// it is placed by the tool call it names (at the end of that call's turn), not where it arrives.
// No DOM here: the page and `node --test` share this module.

import { isConversational, isGrouped, toolFacts } from "./tools.js";

/**
 * @typedef {import("../types/page").Row} Row
 * @typedef {import("../types/page").ToolItem} ToolItem
 * @typedef {import("../types/page").Usage} Usage
 * @typedef {import("../types/page").Progress} Progress
 * @typedef {import("../types/page").Status} Status
 * @typedef {import("../types/page").AnyEvent} AnyEvent
 * @typedef {import("../types/page").PageOption} PageOption
 * @typedef {import("../types/events").EventQuestionAsked} QuestionAsked
 * @typedef {import("../types/events").EventQuestionAnswered} QuestionAnswered
 * @typedef {import("../types/events").EventToolPartial} ToolPartial
 * @typedef {import("../types/events").EventToolStarted} ToolStarted
 * @typedef {import("../types/events").EventCheckpointCreated} CheckpointCreated
 * @typedef {import("../types/events").EventSubagent} Subagent
 * @typedef {import("../types/events").EventBudget} Budget
 * @typedef {import("../types/events").QueuedMessage} QueuedMessage
 * @typedef {QuestionAsked["question"] & { id: string, options?: PageOption[] }} OpenQuestion
 */

const SCAN = 20; // rows looked back over for the row a streaming event belongs to

/** A call's parameters with one tool_partial applied: its text is appended to each parameter,
 * or starts it over for a name in `replaced` (events v3).
 * @param {Record<string, string>} params
 * @param {Pick<ToolPartial, "params" | "replaced">} e
 * @returns {Record<string, string>} */
export function mergePartial(params, e) {
  /** @type {Record<string, string>} */
  const out = { ...params };
  const replaced = new Set(e.replaced || []);
  for (const [name, text] of Object.entries(e.params || {})) {
    out[name] = replaced.has(name) ? text : (out[name] || "") + text;
  }
  return out;
}

/** The end of an exhaustive switch: tsc fails where a kind of the union has no case; at run
 * time a kind this page does not know (a newer server's) changes nothing.
 * @param {never} _kind
 * @returns {null} */
function unhandled(_kind) {
  return null;
}

export class Transcript {
  /** @param {string} taskId */
  constructor(taskId) {
    this.taskId = taskId;
    /** @type {Row[]} */
    this.rows = [];
    /** @type {Status} */
    this.status = "running";
    /** @type {"act" | "plan"} */
    this.mode = "act";
    this.text = "";
    /** @type {Usage} */
    this.usage = { input: 0, output: 0, cacheReads: 0, cacheWrites: 0, cost: 0, context: 0, window: 0 };
    /** @type {Progress | null} */
    this.progress = null;
    /** @type {OpenQuestion | null} */
    this.question = null;
    this.seen = -Infinity; // the last seq applied (replays after a reconnect repeat earlier events)
    this.streaming = false;
    /** @type {string | undefined | null} the server's run id (a resumed task is a new run) */
    this.run = undefined;
    /** @type {string | null} the background task's id, when this page follows one */
    this.background = null;
    this.version = 0; // bumped by every batch: views compare it to know the task changed
    /** @type {Set<(first: number) => void>} */
    this.listeners = new Set();
    /** @type {Map<string, Record<string, string>>} each streaming call's parameters so far */
    this.partials = new Map();
    this.nextId = 0;
    this.turn = 0; // bumped by each run and each request; every row remembers its turn
    this.runTurn = 0; // the turn of the current run's start (its checkpoint has no tool call)
    /** @type {Map<string, number>} tool_call_id -> the turn the call was made in */
    this.callTurns = new Map();
    /** @type {Map<string, Row>} */
    this.subagents = new Map();
    /** @type {Row | null} the command row the user chose to proceed while it runs */
    this.proceeded = null;
    /** @type {QueuedMessage[]} messages sent while the task works, waiting for its next turn */
    this.queued = [];
    /** @type {Map<string, Row>} one row per spending cap, updated as the task spends */
    this.budgets = new Map();
  }

  /** What a tab or the header says: a task that showed its result is completed, even while
   * the box below still takes optional feedback (Cline's completion ask).
   * @returns {Status} */
  get shownStatus() {
    if (this.status === "waiting" && this.question?.kind === "completion") return "completed";
    return this.status;
  }

  /** @param {(first: number) => void} listener */
  on(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Apply a batch; listeners learn the first row index that changed.
   * @param {AnyEvent[]} events */
  apply(events) {
    let firstChanged = Infinity;
    for (const e of events) {
      if (e.seq <= this.seen) continue;
      this.seen = e.seq;
      const before = this.rows.length;
      const changed = this.fold(e);
      if (changed !== null) firstChanged = Math.min(firstChanged, changed, before);
    }
    this.version++;
    for (const l of this.listeners) l(firstChanged);
  }

  last() {
    return this.rows[this.rows.length - 1];
  }

  /** @param {Omit<Row, "id" | "index" | "version" | "turn">} fields */
  push(fields) {
    const row = /** @type {Row} */ ({ ...fields, id: this.nextId++, index: this.rows.length, version: 0, turn: this.turn });
    this.rows.push(row);
    return row.index;
  }

  /** A row that belongs to an earlier turn goes after that turn's rows, before later turns'.
   * @param {number} turn
   * @param {Omit<Row, "id" | "index" | "version" | "turn">} fields */
  insertInTurn(turn, fields) {
    let at = this.rows.length;
    while (at > 0 && this.rows[at - 1].turn > turn) at--;
    if (at === this.rows.length) return this.push(fields);
    const row = /** @type {Row} */ ({ ...fields, id: this.nextId++, index: at, version: 0, turn });
    this.rows.splice(at, 0, row);
    for (let i = at; i < this.rows.length; i++) this.rows[i].index = i;
    return at;
  }

  /** @param {Row} row */
  touch(row) {
    row.version++;
    return row.index;
  }

  /** @param {AnyEvent} e
   * @returns {number | null} the index of the first row changed, or null */
  fold(e) {
    switch (e.kind) {
      case "task_started": {
        this.turn++;
        this.runTurn = this.turn;
        this.text = e.task;
        // A new run: nothing from an earlier one is waiting for an answer.
        this.question = null;
        this.status = "running";
        if (!e.resumed) return this.push({ type: "user", text: e.task });
        const at = this.push({ type: "notice", text: "Task resumed." });
        if (e.message) this.push({ type: "user", text: e.message, feedback: true, ts: e.ts, editable: true, original: e.message });
        return at;
      }
      case "request_started":
        this.turn++;
        this.streaming = true;
        return null;
      case "reasoning_delta": {
        const row = this.last();
        if (row && row.type === "reasoning" && row.open) {
          row.text += e.text;
          return this.touch(row);
        }
        return this.push({ type: "reasoning", text: e.text, open: true });
      }
      case "text_delta": {
        this.streaming = true;
        const row = this.last();
        if (row && row.type === "text" && row.streaming) {
          row.text += e.text;
          return this.touch(row);
        }
        this.closeReasoning();
        return this.push({ type: "text", text: e.text, streaming: true });
      }
      case "text_done": {
        // Native tool calls stream before the prose is closed: look past this turn's tool rows.
        const row = this.streamingText();
        if (row) {
          row.text = e.text;
          row.streaming = false;
          return this.touch(row);
        }
        this.closeReasoning();
        return this.push({ type: "text", text: e.text, streaming: false });
      }
      case "tool_partial":
        this.noteCall(e.tool_call_id);
        return this.toolPartial(e);
      case "tool_started":
        this.noteCall(e.tool_call_id);
        this.closeReasoning();
        return this.toolStarted(e);
      case "tool_output": {
        const row = this.lastTool();
        if (row) {
          row.output = (row.output || "") + e.text;
          return this.touch(row);
        }
        return this.push({ type: "tool", tool: "", summary: "", output: e.text, done: false });
      }
      case "tool_finished": {
        if (isConversational(e.tool)) return null;
        const row = this.lastTool();
        if (!row) return null;
        const item = row.type === "group" && row.items ? row.items[row.items.length - 1] : row;
        item.ok = e.ok;
        item.result = e.result;
        item.images = e.images || [];
        item.done = true;
        if (row.background === undefined && this.proceeded === row) row.background = "running";
        return this.touch(row);
      }
      case "usage":
        this.streaming = false;
        Object.assign(this.usage, {
          input: this.usage.input + e.input_tokens,
          output: this.usage.output + e.output_tokens,
          cacheReads: this.usage.cacheReads + e.cache_read_tokens,
          cacheWrites: this.usage.cacheWrites + e.cache_write_tokens,
          cost: e.task_cost,
          context: e.context_tokens,
          window: e.context_window,
        });
        return null;
      case "task_progress":
        this.progress = { checklist: e.checklist, completed: e.completed, total: e.total, current: e.current };
        return null;
      case "notice":
        return this.push({ type: "notice", text: e.text });
      case "error":
        return this.push({ type: "error", text: e.text });
      case "completion_result":
        return this.push({ type: "completion", text: e.result, command: e.command });
      case "plan_response":
        return this.push({ type: "plan", text: e.response });
      case "mode_changed":
        this.mode = e.mode === "plan" ? "plan" : "act";
        return this.push({ type: "notice", text: `Switched to ${e.mode === "plan" ? "Plan" : "Act"} mode (${e.model}).` });
      case "checkpoint_created":
        return this.checkpoint(e);
      case "subagent":
        return this.subagent(e);
      case "budget":
        return this.budget(e);
      case "queued_messages": {
        this.queued = e.pending || [];
        let at = null;
        for (const m of e.delivered || []) {
          const row = this.push({ type: "user", text: m.text, feedback: true, ts: e.ts, images: m.images || [] });
          if (at === null) at = row;
        }
        return at;
      }
      case "question_asked":
        this.streaming = false;
        this.status = "waiting";
        this.question = { id: e.question_id, ...e.question };
        return this.questionRow(e);
      case "question_answered":
        return this.answered(e);
      case "task_ended": {
        this.streaming = false;
        this.question = null;
        this.status = e.completed ? "completed" : "failed";
        // The task stops the commands it left running as it ends.
        for (const row of this.rows) if (row.background === "running") row.background = "exited";
        // The task's last row already says why it stopped ("Task cancelled.", an error).
        const last = this.last();
        if (e.completed || (last && (last.type === "notice" || last.type === "error"))) return null;
        return this.push({ type: "notice", text: `Task stopped: ${e.reason}` });
      }
      default:
        return unhandled(e);
    }
  }

  /** A spending cap's row, written once and updated in place as the task spends.
   * @param {Budget} e */
  budget(e) {
    const spent = e.unit === "usd" ? `$${e.spent.toFixed(2)} / $${e.cap.toFixed(2)}` : `${Math.round(e.spent).toLocaleString("en")} / ${Math.round(e.cap).toLocaleString("en")} tokens`;
    const text = `${e.scope[0].toUpperCase()}${e.scope.slice(1)} budget: ${spent}`;
    const key = `${e.scope}/${e.unit}`;
    const row = this.budgets.get(key);
    if (row) {
      row.text = text;
      return this.touch(row);
    }
    const at = this.push({ type: "notice", text });
    this.budgets.set(key, this.rows[at]);
    return at;
  }

  /** The user let the running command go on: its row says so once the tool returns. */
  markProceeded() {
    const row = this.lastTool();
    if (row && row.type === "tool" && !row.done) this.proceeded = row;
  }

  /** The background command of a row exited (the task's process list says so).
   * @param {Row} row */
  markExited(row) {
    row.background = "exited";
    this.touch(row);
    this.version++;
    for (const l of this.listeners) l(row.index);
  }

  /** One row per sub-agent, updated in place as it starts, uses tools, spends and ends.
   * @param {Subagent} e */
  subagent(e) {
    const who = e.agent ? ` ${e.agent}` : "";
    const tool = e.latest_tool ? ` · ${e.latest_tool}` : "";
    const text = `Sub-agent${who} ${e.index}/${e.total} ${e.status}${tool} ($${(e.cost || 0).toFixed(4)})`;
    const key = e.child_task_id || `${e.index}/${e.total}`;
    const row = this.subagents.get(key);
    if (row) {
      row.text = text;
      return this.touch(row);
    }
    const at = this.push({ type: "notice", text });
    this.subagents.set(key, this.rows[at]);
    return at;
  }

  /** @param {string | undefined} callId */
  noteCall(callId) {
    if (callId && !this.callTurns.has(callId)) this.callTurns.set(callId, this.turn);
  }

  /** @param {CheckpointCreated} e */
  checkpoint(e) {
    const row = { type: /** @type {const} */ ("checkpoint"), commit: e.commit, label: e.label };
    const turn = e.tool_call_id ? this.callTurns.get(e.tool_call_id) : this.runTurn;
    return turn === undefined ? this.push(row) : this.insertInTurn(turn, row);
  }

  closeReasoning() {
    const row = this.last();
    if (row && row.type === "reasoning" && row.open) {
      row.open = false;
      this.touch(row);
    }
  }

  streamingText() {
    for (let i = this.rows.length - 1; i >= Math.max(0, this.rows.length - SCAN); i--) {
      const r = this.rows[i];
      if (r.turn !== this.turn) break;
      if (r.type === "text" && r.streaming) return r;
    }
    return null;
  }

  /** The row a tool call is drawn in, found by its id (another row may have come in between).
   * @param {string | undefined} callId */
  callRow(callId) {
    if (!callId) return null;
    for (let i = this.rows.length - 1; i >= Math.max(0, this.rows.length - SCAN); i--) {
      const r = this.rows[i];
      if (r.type === "tool" && r.callId === callId) return r;
    }
    return null;
  }

  lastTool() {
    for (let i = this.rows.length - 1; i >= Math.max(0, this.rows.length - SCAN); i--) {
      const r = this.rows[i];
      if (r.type === "tool" || r.type === "group") return r;
    }
    return null;
  }

  /** A tool call as it streams: one row that fills in (the file's content as it is written).
   * Each tool_partial carries what the call's parameters gained since the previous one, or
   * starts a parameter over when it is named in `replaced` (events v3; a replay after a
   * reconnect sends each call once, whole, with every name in `replaced`).
   * @param {ToolPartial} e */
  toolPartial(e) {
    if (isConversational(e.tool) || isGrouped(e.tool)) return null;
    const params = mergePartial(this.partials.get(e.tool_call_id) || {}, e);
    this.partials.set(e.tool_call_id, params);
    const summary = params.path || params.command || params.url || params.server_name || "";
    const streamed = params.content || params.diff || "";
    const row = this.callRow(e.tool_call_id);
    if (row) {
      Object.assign(row, { summary, streamed, params });
      return this.touch(row);
    }
    this.closeReasoning();
    return this.push({ type: "tool", tool: e.tool, summary, streamed, params, callId: e.tool_call_id, partial: true, output: "", done: false });
  }

  /** @param {ToolStarted} e */
  toolStarted(e) {
    if (e.tool_call_id) this.partials.delete(e.tool_call_id);
    if (isConversational(e.tool)) return null;
    const streamed = this.callRow(e.tool_call_id);
    if (streamed && streamed.partial) {
      streamed.partial = false;
      streamed.streamed = "";
      streamed.summary = e.summary;
      return this.touch(streamed);
    }
    /** @type {ToolItem} */
    const item = { tool: e.tool, summary: e.summary, output: "", done: false };
    if (isGrouped(e.tool)) {
      const row = this.last();
      if (row && row.type === "group" && row.items) {
        row.items.push(item);
        return this.touch(row);
      }
      return this.push({ type: "group", items: [item] });
    }
    return this.push({ type: "tool", ...item, callId: e.tool_call_id });
  }

  /** @param {QuestionAsked} e */
  questionRow(e) {
    const q = e.question;
    const base = { questionId: e.question_id, answered: false, options: q.options };
    switch (q.kind) {
      case "approval": {
        const ask = { ...base, preview: q.preview, content: q.content, path: q.path, outside: q.outside_workspace };
        const row = this.last();
        // The tool's row becomes the question (Cline shows one row per action).
        if (row && row.type === "tool" && row.tool === q.tool && !row.done && !row.questionId) {
          Object.assign(row, ask);
          return this.touch(row);
        }
        return this.push({ type: "tool", tool: q.tool, summary: q.summary, output: "", done: false, ...ask });
      }
      case "followup":
        return this.push({ type: "followup", ...base, question: q.question });
      case "completion": {
        const row = this.last();
        if (row && row.type === "completion" && !row.questionId) {
          Object.assign(row, base);
          return this.touch(row);
        }
        return this.push({ type: "completion", ...base, text: q.result });
      }
      case "plan": {
        const row = this.last();
        if (row && row.type === "plan" && !row.questionId) {
          Object.assign(row, base);
          return this.touch(row);
        }
        return this.push({ type: "plan", ...base, text: q.response });
      }
      case "mistake_limit":
        return this.push({ type: "ask-error", ...base, title: "Cline is having trouble…", text: `The model made ${q.count} mistakes in a row. Type guidance and Proceed Anyways, or start a new task.` });
      case "error_retry":
        return this.push({ type: "ask-error", ...base, title: "API Request Failed", text: q.error });
      case "budget_limit": {
        const spent = q.unit === "usd" ? `$${q.spent.toFixed(2)} of $${q.cap.toFixed(2)}` : `${q.spent} of ${q.cap} tokens`;
        return this.push({ type: "ask-error", ...base, title: "Spending cap reached", text: `This ${q.scope} has used ${spent}. Raise the cap to go on, or stop.` });
      }
      default:
        return unhandled(q);
    }
  }

  /** @param {QuestionAnswered} e */
  answered(e) {
    if (this.question && this.question.id === e.question_id) this.question = null;
    this.status = "running";
    const answer = e.answer || {};
    for (let i = this.rows.length - 1; i >= 0; i--) {
      const row = this.rows[i];
      if (row.questionId === e.question_id) {
        row.answered = true;
        row.response = answer.option || "text";
        this.touch(row);
        // What the user said: the option's words for a follow-up, then anything typed.
        const chosen = row.type === "followup" ? (row.options || []).find((o) => o.id === answer.option) : null;
        const said = [chosen ? chosen.label : "", answer.text || ""].filter((x) => x.trim()).join("\n");
        if (said) this.push({ type: "user", text: said, feedback: true, ts: e.ts, editable: !!answer.text, original: answer.text || "" });
        // Answered in another front end (the terminal, an editor, `pycline attach`): say where.
        if (e.by && e.by !== "the web UI") this.push({ type: "notice", text: `Answered in ${e.by}.` });
        return i;
      }
    }
    return null;
  }
}

/** The facts of the tool a row shows (the server's catalogue).
 * @param {Row | ToolItem} row */
export function factsOf(row) {
  return toolFacts(row.tool || "");
}
