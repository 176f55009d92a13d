// One transcript row. Model and tool text reaches the page as text nodes, or as Markdown through
// the sanitizing renderer (lib/markdown.js); a row redraws only when its version changes.

import { html } from "../lib/html.js";
import { Component } from "../vendor/preact.js";
import { renderMarkdown, stableCut } from "../lib/markdown.js";
import { toolFacts, toolTitle } from "../lib/tools.js";
import { CodeBlock, Counts, Diff, Markdown, copyCode, diffCounts } from "./common.js";

/**
 * @typedef {import("../types/page").Row} Row
 * @typedef {import("../types/page").ToolItem} ToolItem
 * @typedef {{
 *   compare: (commit: string) => void,
 *   restore: (commit: string, mode: "both" | "workspace" | "task") => void,
 *   viewChanges: () => void,
 *   checkpointBefore: (row: Row) => string | null,
 *   resend: (row: Row, commit: string | null, restore: "task" | "both", text: string) => void,
 *   bump: (row: Row) => void,
 * }} RowContext
 * @typedef {{ upto: number, fence: boolean, chunks: string[] }} StreamCache
 */

const RESULT_LIMIT = 20_000;
const OUTPUT_LIMIT = 50_000;
// Only raster images in base64 data URLs are shown (the page's CSP allows data: for images alone).
const SAFE_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/;

/** @extends {Component<{ row: Row, version: number, ctx: RowContext }>} */
export class RowView extends Component {
  /** @param {{ row: Row, version: number }} next */
  shouldComponentUpdate(next) {
    return next.row !== this.props.row || next.version !== this.props.version;
  }

  render() {
    return renderRow(this.props.row, this.props.ctx);
  }
}

/** @param {Row} row
 * @param {RowContext} ctx */
function renderRow(row, ctx) {
  switch (row.type) {
    case "user":
      return html`<${UserRow} row=${row} ctx=${ctx} />`;
    case "text":
      if (row.streaming) return html`<${StreamingText} row=${row} />`;
      row.md = undefined;
      return html`<div class="row text"><${Markdown} text=${row.text || ""} /><button type="button" class="link copy" aria-label="Copy message" onClick=${() => navigator.clipboard?.writeText(row.text || "")}>Copy</button></div>`;
    case "reasoning":
      return html`<details class="row reasoning" open=${!!row.expanded} onToggle=${(/** @type {Event} */ e) => { row.expanded = /** @type {HTMLDetailsElement} */ (e.currentTarget).open; }}>
        <summary>${row.open ? "Thinking…" : "Thinking"}</summary><div class="reasoning-text">${row.text}</div></details>`;
    case "group":
      return html`<${Group} row=${row} />`;
    case "tool":
      return row.questionId ? html`<${Approval} row=${row} ctx=${ctx} />` : html`<${Tool} row=${row} ctx=${ctx} />`;
    case "followup":
      return html`<div class="row followup"><div class="title">Cline has a question:</div><${Markdown} text=${row.question || ""} /><${AnswerNote} row=${row} /></div>`;
    case "completion":
      return html`<div class="row completion"><div class="title ok">Task Completed</div><${Markdown} text=${row.text || ""} />
        ${row.command ? html`<${CodeBlock} code=${row.command} lang="sh" />` : null}
        <button type="button" class="link" onClick=${ctx.viewChanges}>View Changes</button></div>`;
    case "plan":
      return html`<div class="row plan"><div class="title">Plan</div><${Markdown} text=${row.text || ""} /></div>`;
    case "ask-error":
      return html`<div class="row error"><div class="title">${row.title || "Error"}</div><pre class="wrap">${row.text}</pre><${AnswerNote} row=${row} /></div>`;
    case "notice":
      return html`<div class="row notice">${row.text}</div>`;
    case "error":
      return html`<div class="row error">${row.text}</div>`;
    case "checkpoint":
      return html`<${Checkpoint} row=${row} ctx=${ctx} />`;
    default:
      return html`<div class="row"></div>`;
  }
}

/** While a reply streams, the blocks before its last blank line (outside code fences) are final:
 * each is rendered once and kept, so a new chunk costs only the unfinished tail.
 * @param {{ row: Row }} props */
function StreamingText({ row }) {
  const text = row.text || "";
  let cache = /** @type {StreamCache | undefined} */ (row.md);
  if (!cache || cache.upto > text.length) cache = row.md = { upto: 0, fence: false, chunks: [] };
  const cut = stableCut(text, cache);
  if (cut.upto > cache.upto) {
    cache.chunks.push(renderMarkdown(text.slice(cache.upto, cut.upto)));
    cache.upto = cut.upto;
    cache.fence = cut.fence;
  }
  const chunks = cache.chunks;
  return html`<div class="row text streaming"><div class="md" onClick=${copyCode}>
    ${chunks.map((chunk, i) => html`<div key=${i} class="md-part" dangerouslySetInnerHTML=${{ __html: chunk }} />`)}
    <div class="md-part md-tail" dangerouslySetInnerHTML=${{ __html: renderMarkdown(text.slice(cache.upto)) }} />
  </div></div>`;
}

/** Cline's UserMessage: an earlier message edited goes back to the checkpoint before it and is
 * sent again; Restore Chat rewinds the conversation only, Restore All the files too.
 * @param {{ row: Row, ctx: RowContext }} props */
function UserRow({ row, ctx }) {
  const edit = (/** @type {boolean} */ on) => {
    row.editing = on;
    row.draft = undefined;
    ctx.bump(row);
  };
  if (!row.editing) {
    return html`<div class="row user"><div class="bubble">${row.text}</div>
      ${row.editable ? html`<button type="button" class="link" aria-label="Edit message" onClick=${() => edit(true)}>Edit</button>` : null}</div>`;
  }
  const commit = ctx.checkpointBefore(row);
  const send = (/** @type {"task" | "both"} */ restore) => () => {
    const text = (row.draft ?? row.text ?? "").trim();
    if (text) ctx.resend(row, commit, restore, text);
  };
  return html`<div class="row user editing">
    <textarea class="edit-content" aria-label="Edited message" rows="3" value=${row.draft ?? row.text}
      onInput=${(/** @type {Event} */ e) => { row.draft = /** @type {HTMLTextAreaElement} */ (e.currentTarget).value; }} />
    <div class="form-actions">
      <button type="button" class="primary" title="Rewind the conversation to before this message and send it again" onClick=${send("task")}>Restore Chat</button>
      ${commit ? html` <button type="button" title="Rewind the files and the conversation, and send it again" onClick=${send("both")}>Restore All</button>` : null}
      ${" "}<button type="button" class="secondary" onClick=${() => edit(false)}>Cancel</button>
    </div></div>`;
}

/** @param {{ item: ToolItem | Row }} props */
function ResultBlock({ item }) {
  if (!item.done || !item.result) return null;
  return html`<details class=${`result${item.ok === false ? " failed" : ""}`}><summary>${item.ok === false ? "Failed" : "Result"}</summary>
    <pre class="wrap">${item.result.slice(0, RESULT_LIMIT)}</pre></details>`;
}

/** @param {{ item: ToolItem | Row }} props */
function Images({ item }) {
  const shown = (item.images || []).filter((src) => SAFE_IMAGE.test(src));
  if (!shown.length) return null;
  const what = toolFacts(item.tool || "").effect === "browser" ? "Browser screenshot" : "Image";
  return html`<div class="shots">${shown.map((src, i) => html`<img class="screenshot" src=${src} alt=${shown.length > 1 ? `${what} ${i + 1}` : what} loading="lazy" />`)}</div>`;
}

/** MCP results are Markdown more often than not: shown rendered, with a toggle to the raw text.
 * @param {{ row: Row, ctx: RowContext }} props */
function McpResult({ row, ctx }) {
  if (!row.done || !row.result) return null;
  const text = row.result.slice(0, RESULT_LIMIT);
  const toggle = () => {
    row.raw = !row.raw;
    ctx.bump(row);
  };
  return html`<div class=${`result mcp-result${row.ok === false ? " failed" : ""}`} role="group" aria-label="MCP result">
    <div class="result-head"><span>${row.ok === false ? "Failed" : "Response"}</span>
      <button type="button" class="link" aria-label="Show raw result" aria-pressed=${String(!!row.raw)} onClick=${toggle}>Raw</button></div>
    ${row.raw ? html`<pre class="wrap" aria-label="Raw result">${text}</pre>` : html`<${Markdown} text=${text} />`}
  </div>`;
}

/** @param {{ row: Row, ctx: RowContext }} props */
function Result({ row, ctx }) {
  return toolFacts(row.tool || "").effect === "mcp" ? html`<${McpResult} row=${row} ctx=${ctx} />` : html`<${ResultBlock} item=${row} />`;
}

/** @param {{ row: Row }} props */
function Group({ row }) {
  const items = row.items || [];
  const title = items.length === 1 ? toolTitle(items[0].tool, items[0].done) : `Cline read, listed or searched ${items.length} times`;
  return html`<div class="row tool group"><div class="title">${title || "Cline used a tool:"}</div>
    <ul class="group-items">${items.map((item) => html`<li><code>${item.summary}</code><${ResultBlock} item=${item} /></li>`)}</ul></div>`;
}

/** A command's state: running, done, or left running in the background.
 * @param {{ row: Row }} props */
function CommandState({ row }) {
  const [cls, text] =
    row.background === "running" ? ["running", "Running in background"]
      : !row.done ? ["running", "Running"]
        : row.ok === false ? ["failed", "Failed"] : ["completed", "Completed"];
  return html`<span class=${`badge ${cls}`}>${text}</span>`;
}

/** @param {{ row: Row, ctx: RowContext }} props */
function Tool({ row, ctx }) {
  const effect = toolFacts(row.tool || "").effect;
  const title = toolTitle(row.tool || "", row.done) || `Cline used ${row.tool || "a tool"}:`;
  return html`<div class="row tool"><div class="title">${title}</div><code class="summary">${row.summary}</code>
    ${row.partial && row.streamed ? html`<pre class="streamed" aria-label="Streaming">${row.streamed.slice(-4000)}</pre>` : null}
    ${effect === "execute" ? html`<${CommandState} row=${row} />` : null}
    ${effect === "execute" && row.output ? html`<pre class="output" aria-label="Command output">${row.output.slice(-OUTPUT_LIMIT)}</pre>` : null}
    <${Images} item=${row} /><${Result} row=${row} ctx=${ctx} /></div>`;
}

/** A tool call waiting for the user: the proposed change (a diff or the command), editable
 * content for a file, then what was answered.
 * @param {{ row: Row, ctx: RowContext }} props */
function Approval({ row, ctx }) {
  const effect = toolFacts(row.tool || "").effect;
  const title = toolTitle(row.tool || "", row.done && row.response === "approve") || `Cline wants to use ${row.tool}:`;
  let preview = null;
  if (row.preview && effect === "execute") preview = html`<${CodeBlock} code=${row.preview} lang="sh" label="Command" />`;
  else if (row.preview) {
    preview = html`<div class="diff-head"><${Counts} ...${diffCounts(row.preview)} /></div><${Diff} diff=${row.preview} label="Proposed changes" />`;
  }
  const editable = row.content !== null && row.content !== undefined && !row.answered;
  return html`<div class=${`row approval${row.answered ? " answered" : ""}`}>
    <div class="title">${title}</div><code class="summary">${row.summary}</code>
    ${row.outside ? html`<div class="warn">This path is outside the workspace.</div>` : null}
    ${preview}
    ${editable ? html`<details class="edit" open=${!!row.editing} onToggle=${(/** @type {Event} */ e) => { row.editing = /** @type {HTMLDetailsElement} */ (e.currentTarget).open; }}>
      <summary>Edit before saving</summary>
      <textarea class="edit-content" aria-label="Edit the proposed file before saving" rows="10" spellcheck="false" value=${row.edited ?? row.content}
        onInput=${(/** @type {Event} */ e) => { row.edited = /** @type {HTMLTextAreaElement} */ (e.currentTarget).value; }} />
    </details>` : null}
    <${AnswerNote} row=${row} />
    ${effect === "execute" ? html`<${CommandState} row=${row} />` : null}
    ${row.output ? html`<pre class="output" aria-label="Command output">${row.output.slice(-OUTPUT_LIMIT)}</pre>` : null}
    <${Images} item=${row} /><${Result} row=${row} ctx=${ctx} />
  </div>`;
}

const ANSWERED = /** @type {Record<string, string>} */ ({
  approve: "Approved", deny: "Rejected", accept: "Accepted", retry: "Retried", continue: "Continued",
  act: "Switched to Act", stop: "Stopped", text: "Answered",
});

/** @param {{ row: Row }} props */
function AnswerNote({ row }) {
  if (!row.answered) return null;
  return html`<div class=${`answer-note ${row.response}`}>${ANSWERED[row.response || ""] || "Answered"}</div>`;
}

/** Cline's checkpoint marker: Compare, and Restore (Files & Task, Files Only, Task Only).
 * @extends {Component<{ row: Row, ctx: RowContext }, { open: boolean }>} */
class Checkpoint extends Component {
  state = { open: false };

  render() {
    const { row, ctx } = this.props;
    const commit = row.commit || "";
    const choose = (/** @type {"both" | "workspace" | "task"} */ mode) => () => {
      this.setState({ open: false });
      ctx.restore(commit, mode);
    };
    return html`<div class="row checkpoint" data-commit=${commit}>
      <span class="checkpoint-label">Checkpoint</span><code>${commit.slice(0, 8)}</code>
      <button type="button" onClick=${() => ctx.compare(commit)}>Compare</button>
      <button type="button" aria-haspopup="menu" aria-expanded=${String(this.state.open)} onClick=${() => this.setState({ open: !this.state.open })}>Restore</button>
      ${this.state.open ? html`<div class="restore-menu" role="menu">
        <button type="button" role="menuitem" onClick=${choose("both")}>Restore Files & Task</button>
        <button type="button" role="menuitem" onClick=${choose("workspace")}>Restore Files Only</button>
        <button type="button" role="menuitem" onClick=${choose("task")}>Restore Task Only</button>
      </div>` : null}
    </div>`;
  }
}
