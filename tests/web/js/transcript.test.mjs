// The transcript reducer: wire events in, rows out (no DOM).

import { test } from "node:test";
import assert from "node:assert/strict";
import { Transcript } from "../../../src/pycline/web/static/lib/transcript.js";
import { setTools } from "../../../src/pycline/web/static/lib/tools.js";

const TOOLS = {
  execute_command: { effect: "execute", title: "Cline wants to execute this command:", done_title: "Cline executed this command:", kind: "execute", conversational: false },
  read_file: { effect: "read", title: "Cline wants to read this file:", done_title: "Cline read this file:", kind: "read", conversational: false },
  write_to_file: { effect: "edit", title: "Cline wants to create or overwrite this file:", done_title: "Cline wrote this file:", kind: "edit", conversational: false },
  attempt_completion: { effect: "interaction", title: "Task Completed", done_title: "", kind: "think", conversational: true },
};
setTools(TOOLS);

let seq = 0;
const ev = (kind, fields = {}) => ({ v: 3, task_id: "t1", seq: ++seq, ts: 1, kind, ...fields });
const started = (task = "Do it") => ev("task_started", { task, workspace: "/w", resumed: false });

test("a reply streams into one row that is closed by its final text", () => {
  const t = new Transcript("t1");
  t.apply([started(), ev("request_started", { index: 1 }), ev("text_delta", { text: "Hel" }), ev("text_delta", { text: "lo" })]);
  assert.equal(t.rows.length, 2);
  const [user, text] = t.rows;
  assert.deepEqual([user.type, user.text], ["user", "Do it"]);
  assert.deepEqual([text.type, text.text, text.streaming], ["text", "Hello", true]);
  const version = text.version;
  t.apply([ev("text_done", { text: "Hello!" })]);
  assert.deepEqual([t.rows.length, text.text, text.streaming], [2, "Hello!", false]);
  assert.ok(text.version > version, "a changed row gets a new version");
});

test("events replayed after a reconnect are not applied twice", () => {
  const t = new Transcript("t1");
  const batch = [started(), ev("request_started", { index: 1 }), ev("text_delta", { text: "once" })];
  t.apply(batch);
  t.apply(batch);
  assert.equal(t.rows[1].text, "once");
});

test("reads in a row are one group; a command keeps its output and result", () => {
  const t = new Transcript("t1");
  t.apply([
    started(),
    ev("tool_started", { tool: "read_file", summary: "a.py", tool_call_id: "c1" }),
    ev("tool_finished", { tool: "read_file", summary: "a.py", ok: true, result: "x", tool_call_id: "c1", images: [] }),
    ev("tool_started", { tool: "read_file", summary: "b.py", tool_call_id: "c2" }),
    ev("tool_started", { tool: "execute_command", summary: "ls", tool_call_id: "c3" }),
    ev("tool_output", { text: "one\n", tool_call_id: "c3" }),
    ev("tool_output", { text: "two\n", tool_call_id: "c3" }),
    ev("tool_finished", { tool: "execute_command", summary: "ls", ok: false, result: "exit 1", tool_call_id: "c3", images: [] }),
  ]);
  const [, group, command] = t.rows;
  assert.equal(group.type, "group");
  assert.deepEqual(group.items.map((i) => i.summary), ["a.py", "b.py"]);
  assert.deepEqual([command.output, command.ok, command.done], ["one\ntwo\n", false, true]);
});

test("a question makes the task wait; its answer shows what the user said", () => {
  const t = new Transcript("t1");
  const question = { kind: "followup", question: "Which?", options: [{ id: "o1", label: "Red" }, { id: "o2", label: "Blue" }] };
  t.apply([started(), ev("question_asked", { question_id: "q1", question })]);
  assert.equal(t.status, "waiting");
  assert.equal(t.question.id, "q1");
  t.apply([ev("question_answered", { question_id: "q1", answer: { option: "o2", text: "quickly" } })]);
  assert.equal(t.status, "running");
  assert.equal(t.question, null);
  assert.deepEqual([t.last().type, t.last().text], ["user", "Blue\nquickly"]);
});

test("a task that showed its result reads completed while the box takes feedback", () => {
  const t = new Transcript("t1");
  t.apply([started(), ev("completion_result", { result: "Done.", command: null }), ev("question_asked", { question_id: "q", question: { kind: "completion", result: "Done.", options: [{ id: "accept", label: "Start New Task" }] } })]);
  assert.equal(t.status, "waiting");
  assert.equal(t.shownStatus, "completed");
  assert.equal(t.rows.filter((r) => r.type === "completion").length, 1);
});

test("a cancelled task says once that it stopped", () => {
  const t = new Transcript("t1");
  t.apply([started(), ev("notice", { text: "Task cancelled." }), ev("task_ended", { completed: false, reason: "The task was cancelled." })]);
  assert.deepEqual(t.rows.filter((r) => r.type === "notice").map((r) => r.text), ["Task cancelled."]);
  const failed = new Transcript("t2");
  failed.apply([started(), ev("task_ended", { completed: false, reason: "Too many mistakes." })]);
  assert.equal(failed.last().text, "Task stopped: Too many mistakes.");
});

test("a checkpoint that arrives late goes at the end of its call's turn", () => {
  const t = new Transcript("t1");
  t.apply([
    started(),
    ev("request_started", { index: 1 }),
    ev("tool_started", { tool: "write_to_file", summary: "a.txt", tool_call_id: "w1" }),
    ev("tool_finished", { tool: "write_to_file", summary: "a.txt", ok: true, result: "ok", tool_call_id: "w1", images: [] }),
    ev("request_started", { index: 2 }),
    ev("text_delta", { text: "Next" }),
    ev("checkpoint_created", { commit: "c0ffee", label: "", tool_call_id: "w1" }),
  ]);
  assert.deepEqual(t.rows.map((r) => r.type), ["user", "tool", "checkpoint", "text"]);
  assert.deepEqual(t.rows.map((r) => r.index), [0, 1, 2, 3]);
});

test("the plan's Act button switches the task's mode", () => {
  const t = new Transcript("t1");
  t.mode = "plan";
  t.apply([started(), ev("mode_changed", { mode: "act", model: "m" })]);
  assert.equal(t.mode, "act");
});

test("a command the user let run on reads as running in the background until it exits", () => {
  const t = new Transcript("t1");
  t.apply([started(), ev("tool_started", { tool: "execute_command", summary: "serve", tool_call_id: "c" })]);
  t.markProceeded();
  t.apply([ev("tool_finished", { tool: "execute_command", summary: "serve", ok: true, result: "goes on", tool_call_id: "c", images: [] })]);
  const row = t.lastTool();
  assert.equal(row.background, "running");
  t.markExited(row);
  assert.equal(row.background, "exited");
  const ended = new Transcript("t2");
  ended.apply([started(), ev("tool_started", { tool: "execute_command", summary: "serve", tool_call_id: "c" })]);
  ended.markProceeded();
  ended.apply([ev("tool_finished", { tool: "execute_command", summary: "serve", ok: true, result: "", tool_call_id: "c", images: [] }), ev("task_ended", { completed: true, reason: "" })]);
  assert.equal(ended.lastTool().background, "exited");
});

test("a streamed call fills one row from its deltas; `replaced` starts a parameter over", () => {
  const t = new Transcript("t1");
  t.apply([
    started(),
    ev("tool_partial", { tool: "write_to_file", tool_call_id: "w", params: { path: "a.txt", content: "one" } }),
    ev("tool_partial", { tool: "write_to_file", tool_call_id: "w", params: { content: "\ntwo" } }),
  ]);
  assert.equal(t.rows.length, 2);
  assert.deepEqual([t.last().summary, t.last().streamed], ["a.txt", "one\ntwo"]);
  t.apply([ev("tool_partial", { tool: "write_to_file", tool_call_id: "w", params: { path: "b.txt" }, replaced: ["path"] })]);
  assert.deepEqual([t.last().summary, t.last().streamed], ["b.txt", "one\ntwo"]);
  t.apply([ev("tool_started", { tool: "write_to_file", summary: "b.txt", tool_call_id: "w" })]);
  assert.deepEqual([t.rows.length, t.last().partial], [2, false]);
});

test("a replay after a reconnect sends a streaming call once, whole, and it is not appended twice", () => {
  const t = new Transcript("t1");
  const first = ev("tool_partial", { tool: "write_to_file", tool_call_id: "w", params: { path: "a.txt", content: "one" } });
  t.apply([started(), first]);
  // The server's log keeps the call as far as it came, every name in `replaced`, at a later seq.
  const whole = ev("tool_partial", { tool: "write_to_file", tool_call_id: "w", params: { path: "a.txt", content: "one two" }, replaced: ["path", "content"] });
  t.apply([first, whole]);
  assert.equal(t.rows.length, 2);
  assert.deepEqual([t.last().summary, t.last().streamed], ["a.txt", "one two"]);
  t.apply([ev("tool_partial", { tool: "write_to_file", tool_call_id: "w", params: { content: " three" } })]);
  assert.equal(t.last().streamed, "one two three");
});

test("listeners learn the first row that changed", () => {
  const t = new Transcript("t1");
  const seen = [];
  t.on((first) => seen.push(first));
  t.apply([started(), ev("request_started", { index: 1 }), ev("text_delta", { text: "a" })]);
  t.apply([ev("text_delta", { text: "b" })]);
  assert.deepEqual(seen, [0, 1]);
});

test("queued messages are listed until delivered, then shown as the user's", () => {
  const t = new Transcript("t1");
  const queued = { message_id: "m1", text: "use tabs", images: [] };
  t.apply([started(), ev("queued_messages", { pending: [queued], delivered: [] })]);
  assert.deepEqual(t.queued, [queued]);
  assert.equal(t.rows.length, 1, "a queued message is not in the transcript yet");
  t.apply([ev("queued_messages", { pending: [], delivered: [queued] })]);
  assert.deepEqual(t.queued, []);
  assert.deepEqual([t.last().type, t.last().text], ["user", "use tabs"]);
});

test("each spending cap has one row, updated as the task spends", () => {
  const t = new Transcript("t1");
  t.apply([started(), ev("budget", { scope: "task", unit: "usd", spent: 0.1, cap: 1 })]);
  t.apply([ev("budget", { scope: "task", unit: "usd", spent: 0.42, cap: 1 })]);
  const rows = t.rows.filter((r) => r.type === "notice");
  assert.deepEqual(rows.map((r) => r.text), ["Task budget: $0.42 / $1.00"]);
});
