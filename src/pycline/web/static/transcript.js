// A task's transcript: wire events folded into rows. Streaming touches only the last row, and
// each change bumps that row's version, so the list re-renders one row, never the whole task.
// A checkpoint is made while the next reply streams, so its event can arrive after later rows:
// it is placed by the tool call it names (at the end of that call's turn), not where it arrives.

import { isConversational, isGrouped } from "./tools.js";

// A call's parameters with one tool_partial applied: its text is appended to each parameter,
// or starts it over for a name in `replaced` (events v3).
export function mergePartial(params, e) {
  const out = { ...params };
  const replaced = new Set(e.replaced || []);
  for (const [name, text] of Object.entries(e.params || {})) {
    out[name] = replaced.has(name) ? text : (out[name] || "") + text;
  }
  return out;
}

export class Transcript {
  constructor(taskId) {
    this.taskId = taskId;
    this.rows = [];
    this.status = "running";
    this.mode = "act";
    this.text = "";
    this.usage = { input: 0, output: 0, cacheReads: 0, cacheWrites: 0, cost: 0, context: 0, window: 0 };
    this.question = null; // {question_id, question}
    this.seen = -Infinity; // the last seq applied (replays after a reconnect repeat earlier events)
    this.streaming = false;
    this.listeners = new Set();
    this.nextId = 0;
    this.turn = 0; // bumped by each run and each request; every row remembers its turn
    this.runTurn = 0; // the turn of the current run's start (its checkpoint has no tool call)
    this.callTurns = new Map(); // tool_call_id -> the turn the call was made in
  }

  on(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // Apply a batch; listeners learn whether rows were only appended/changed at the end or more.
  apply(events) {
    let firstChanged = Infinity;
    for (const e of events) {
      if (e.seq <= this.seen) continue;
      this.seen = e.seq;
      const before = this.rows.length;
      const changed = this.fold(e);
      if (changed !== null) firstChanged = Math.min(firstChanged, changed, before);
    }
    for (const l of this.listeners) l(firstChanged);
  }

  last() {
    return this.rows[this.rows.length - 1];
  }

  push(row) {
    row.id = this.nextId++;
    row.index = this.rows.length;
    row.version = 0;
    row.turn = this.turn;
    this.rows.push(row);
    return this.rows.length - 1;
  }

  // A row that belongs to an earlier turn goes after that turn's rows, before later turns'.
  insertInTurn(turn, row) {
    let at = this.rows.length;
    while (at > 0 && this.rows[at - 1].turn > turn) at--;
    if (at === this.rows.length) return this.push(row);
    row.id = this.nextId++;
    row.version = 0;
    row.turn = turn;
    this.rows.splice(at, 0, row);
    for (let i = at; i < this.rows.length; i++) this.rows[i].index = i;
    return at;
  }

  touch(row) {
    row.version++;
    return row.index;
  }

  fold(e) {
    switch (e.kind) {
      case "task_started":
        this.turn++;
        this.runTurn = this.turn;
        this.text = e.task;
        if (e.resumed) return this.push({ type: "notice", text: "Task resumed." });
        return this.push({ type: "user", text: e.task });
      case "user_message":
        if (!this.text) this.text = e.text;
        return this.push({ type: "user", text: e.text, ts: e.ts, editable: !!e.editable });
      case "request_started":
        this.turn++;
        this.streaming = true;
        return null;
      case "reasoning_delta":
      case "reasoning_done": {
        const row = this.last();
        if (row && row.type === "reasoning" && row.open) {
          row.text += e.text;
          return this.touch(row);
        }
        return this.push({ type: "reasoning", text: e.text, open: e.kind === "reasoning_delta" });
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
        this.noteCall(e);
        return this.toolPartial(e);
      case "tool_started":
        this.noteCall(e);
        this.closeReasoning();
        return this.toolStarted(e);
      case "tool_output": {
        const row = this.lastTool();
        if (row) {
          row.output = (row.output || "") + e.text;
          return this.touch(row);
        }
        return this.push({ type: "tool", tool: "execute_command", summary: "", output: e.text });
      }
      case "tool_finished": {
        if (isConversational(e.tool)) return null;
        const row = this.lastTool();
        if (!row) return null;
        const item = row.type === "group" ? row.items[row.items.length - 1] : row;
        item.ok = e.ok;
        item.result = e.result;
        item.images = e.images || [];
        item.done = true;
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
      case "saved_usage":
        Object.assign(this.usage, {
          input: this.usage.input + e.input_tokens,
          output: this.usage.output + e.output_tokens,
          cacheReads: this.usage.cacheReads + e.cache_read_tokens,
          cacheWrites: this.usage.cacheWrites + e.cache_write_tokens,
          cost: this.usage.cost + e.cost,
        });
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
        this.mode = e.mode;
        return this.push({ type: "notice", text: `Switched to ${e.mode === "plan" ? "Plan" : "Act"} mode (${e.model}).` });
      case "checkpoint_created":
        return this.checkpoint(e);
      case "subagent":
        return this.subagent(e);
      case "question_asked":
        this.streaming = false;
        this.status = "waiting";
        this.question = { id: e.question_id, ...e.question };
        return this.questionRow(e);
      case "question_answered":
        return this.answered(e);
      case "saved_question":
        return this.push({ type: "followup", question: e.text, options: [], answered: true });
      case "task_ended":
        this.streaming = false;
        this.status = e.completed ? "completed" : "failed";
        if (!e.completed) return this.push({ type: "notice", text: `Task stopped: ${e.reason}` });
        return null;
      default:
        return null;
    }
  }

  // One row per sub-agent, updated in place as it starts, uses tools, spends and ends.
  subagent(e) {
    const who = e.agent ? ` ${e.agent}` : "";
    const tool = e.latest_tool ? ` · ${e.latest_tool}` : "";
    const text = `Sub-agent${who} ${e.index}/${e.total} ${e.status}${tool} ($${e.cost.toFixed(4)})`;
    this.subagents ??= new Map();
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

  noteCall(e) {
    if (e.tool_call_id && !this.callTurns.has(e.tool_call_id)) this.callTurns.set(e.tool_call_id, this.turn);
  }

  checkpoint(e) {
    const row = { type: "checkpoint", commit: e.commit, label: e.label };
    // A saved transcript lists each checkpoint where it belongs already.
    if (e.saved) return this.push(row);
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
    for (let i = this.rows.length - 1; i >= Math.max(0, this.rows.length - 20); i--) {
      const r = this.rows[i];
      if (r.turn !== this.turn) break;
      if (r.type === "text" && r.streaming) return r;
    }
    return null;
  }

  // The row a tool call is drawn in, found by its id (another row may have come in between).
  callRow(callId) {
    if (!callId) return null;
    for (let i = this.rows.length - 1; i >= Math.max(0, this.rows.length - 20); i--) {
      const r = this.rows[i];
      if (r.type === "tool" && r.callId === callId) return r;
    }
    return null;
  }

  lastTool() {
    for (let i = this.rows.length - 1; i >= Math.max(0, this.rows.length - 20); i--) {
      const r = this.rows[i];
      if (r.type === "tool" || r.type === "group") return r;
    }
    return null;
  }

  // A tool call as it streams: one row that fills in (the file's content as it is written).
  // Each tool_partial carries what the call's parameters gained since the previous one.
  toolPartial(e) {
    if (isConversational(e.tool) || isGrouped(e.tool)) return null;
    this.partialParams ??= new Map();
    const p = mergePartial(this.partialParams.get(e.tool_call_id) || {}, e);
    this.partialParams.set(e.tool_call_id, p);
    const summary = p.path || p.command || p.url || p.server_name || "";
    const row = this.callRow(e.tool_call_id);
    if (row) {
      row.summary = summary;
      row.streamed = p.content || p.diff || "";
      return this.touch(row);
    }
    this.closeReasoning();
    return this.push({ type: "tool", tool: e.tool, summary, streamed: p.content || p.diff || "", callId: e.tool_call_id, partial: true, output: "", done: false });
  }

  toolStarted(e) {
    this.partialParams?.delete(e.tool_call_id);
    if (isConversational(e.tool)) return null;
    const streamed = this.callRow(e.tool_call_id);
    if (streamed && streamed.partial) {
      streamed.partial = false;
      streamed.streamed = "";
      streamed.summary = e.summary;
      return this.touch(streamed);
    }
    const item = { tool: e.tool, summary: e.summary, output: "", done: false };
    if (isGrouped(e.tool)) {
      const row = this.last();
      if (row && row.type === "group") {
        row.items.push(item);
        return this.touch(row);
      }
      return this.push({ type: "group", items: [item] });
    }
    return this.push({ type: "tool", ...item });
  }

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
      default:
        return null;
    }
  }

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
        return i;
      }
    }
    return null;
  }
}
