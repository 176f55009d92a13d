// One transcript row as DOM. Only text nodes carry model or tool text.

import { renderMarkdown, codeBlock } from "./markdown.js";
import { diffLines, diffCounts } from "./highlight.js";
import { toolTitle } from "./tools.js";

export const h = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
};

export const button = (label, onclick, attrs = {}) =>
  h("button", { type: "button", onclick, ...attrs }, label);

export function renderRow(row, ctx) {
  switch (row.type) {
    case "user":
      return userRow(row, ctx);
    case "text":
      if (row.streaming) return streamingMarkdown(row);
      row.md = null;
      return h("div", { class: "row text" }, renderMarkdown(row.text), copyButton(row.text));
    case "reasoning":
      return reasoning(row);
    case "group":
      return group(row);
    case "tool":
      return row.questionId ? approval(row, ctx) : tool(row, ctx);
    case "followup":
      return h("div", { class: "row followup" }, h("div", { class: "title", text: "Cline has a question:" }), renderMarkdown(row.question || ""), answerNote(row));
    case "completion":
      return h("div", { class: "row completion" }, h("div", { class: "title ok", text: "Task Completed" }), renderMarkdown(row.text || ""), row.command ? codeBlock(row.command, "sh") : null,
        button("View Changes", () => ctx.viewChanges(), { class: "link" }));
    case "plan":
      return h("div", { class: "row plan" }, h("div", { class: "title", text: "Plan" }), renderMarkdown(row.text || ""));
    case "ask-error":
      return h("div", { class: "row error" }, h("div", { class: "title", text: row.title || "Error" }), h("pre", { class: "wrap", text: row.text }), answerNote(row));
    case "notice":
      return h("div", { class: "row notice", text: row.text });
    case "error":
      return h("div", { class: "row error", text: row.text });
    case "checkpoint":
      return checkpoint(row, ctx);
    default:
      return h("div", { class: "row", text: "" });
  }
}

// While a reply streams, the blocks before its last blank line (outside code fences) are final:
// they are rendered once and kept, so each new chunk costs only the unfinished tail.
function streamingMarkdown(row) {
  let cache = row.md;
  if (!cache || cache.upto > row.text.length) {
    const stable = h("div", { class: "md" });
    const tail = h("div");
    cache = row.md = { upto: 0, fence: false, stable, tail, node: h("div", { class: "row text streaming" }, stable, tail) };
  }
  let fence = cache.fence;
  let cut = cache.upto;
  let lineStart = cache.upto;
  const text = row.text;
  while (true) {
    const end = text.indexOf("\n", lineStart);
    if (end < 0) break;
    const line = text.slice(lineStart, end);
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    else if (!fence && !line.trim()) {
      cut = end + 1;
      cache.fence = fence;
    }
    lineStart = end + 1;
  }
  if (cut > cache.upto) {
    cache.stable.append(...renderMarkdown(text.slice(cache.upto, cut)).childNodes);
    cache.upto = cut;
  }
  const tail = renderMarkdown(text.slice(cut));
  cache.tail.replaceWith(tail);
  cache.tail = tail;
  return cache.node; // the same element each time: the page lays out only what changed
}

function copyButton(text) {
  return button("Copy", () => navigator.clipboard?.writeText(text), { class: "link copy", "aria-label": "Copy message" });
}

function reasoning(row) {
  const details = h("details", { class: "row reasoning", open: row.expanded || false });
  details.addEventListener("toggle", () => { row.expanded = details.open; });
  details.append(h("summary", { text: row.open ? "Thinking…" : "Thinking" }), h("div", { class: "reasoning-text", text: row.text }));
  return details;
}

function resultBlock(item) {
  if (!item.done || !item.result) return null;
  return h("details", { class: `result${item.ok === false ? " failed" : ""}` }, h("summary", { text: item.ok === false ? "Failed" : "Result" }), h("pre", { class: "wrap", text: item.result.slice(0, 20000) }));
}

// Only raster images in base64 data URLs are shown (the page's CSP allows data: for images alone).
const SAFE_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/;

function images(item) {
  const shown = (item.images || []).filter((src) => SAFE_IMAGE.test(src));
  if (!shown.length) return null;
  const what = item.tool === "browser_action" ? "Browser screenshot" : "Image";
  return h("div", { class: "shots" }, ...shown.map((src, i) =>
    h("img", { class: "screenshot", src, alt: shown.length > 1 ? `${what} ${i + 1}` : what, loading: "lazy" })));
}

// Cline's UserMessage: an earlier message edited goes back to the checkpoint before it and is sent
// again; Restore Chat rewinds the conversation only, Restore All the files too.
function userRow(row, ctx) {
  const commit = ctx.checkpointBefore?.(row);
  if (!row.editing) {
    const edit = row.editable && ctx.edit ? button("Edit", () => ctx.edit(row, true), { class: "link", "aria-label": "Edit message" }) : null;
    return h("div", { class: "row user" }, h("div", { class: "bubble", text: row.text }), edit);
  }
  const area = h("textarea", { class: "edit-content", "aria-label": "Edited message", rows: "3" });
  area.value = row.draft ?? row.text;
  area.addEventListener("input", () => { row.draft = area.value; });
  const send = (restore) => () => area.value.trim() && ctx.resend(row, commit, restore, area.value.trim());
  const all = commit ? button("Restore All", send("both"), { title: "Rewind the files and the conversation, and send it again" }) : null;
  return h("div", { class: "row user editing" }, area,
    h("div", { class: "form-actions" },
      button("Restore Chat", send("task"), { class: "primary", title: "Rewind the conversation to before this message and send it again" }),
      all,
      button("Cancel", () => ctx.edit(row, false), { class: "secondary" })));
}

const MCP_TOOLS = new Set(["use_mcp_tool", "access_mcp_resource"]);

// MCP results are Markdown more often than not: shown rendered (the renderer builds DOM from text
// nodes and keeps only http(s) links), with a toggle to the raw text.
function mcpResult(row, ctx) {
  if (!row.done || !row.result) return null;
  const text = row.result.slice(0, 20000);
  const rendered = renderMarkdown(text);
  const raw = h("pre", { class: "wrap", "aria-label": "Raw result", text });
  const show = () => {
    rendered.hidden = !!row.raw;
    raw.hidden = !row.raw;
    toggle.setAttribute("aria-pressed", String(!!row.raw));
  };
  const toggle = button("Raw", () => { row.raw = !row.raw; show(); ctx.relayout?.(); }, { class: "link", "aria-label": "Show raw result" });
  const box = h("div", { class: `result mcp-result${row.ok === false ? " failed" : ""}`, role: "group", "aria-label": "MCP result" },
    h("div", { class: "result-head" }, h("span", { text: row.ok === false ? "Failed" : "Response" }), toggle), rendered, raw);
  show();
  return box;
}

function resultOf(row, ctx) {
  return MCP_TOOLS.has(row.tool) ? mcpResult(row, ctx) : resultBlock(row);
}

function group(row) {
  const items = row.items;
  const title = items.length === 1 ? toolTitle(items[0].tool, items[0].done) : `Cline read, listed or searched ${items.length} times`;
  const list = h("ul", { class: "group-items" });
  for (const item of items) list.append(h("li", {}, h("code", { text: item.summary }), resultBlock(item)));
  return h("div", { class: "row tool group" }, h("div", { class: "title", text: title || "Cline used a tool:" }), list);
}

function tool(row, ctx) {
  const title = toolTitle(row.tool, row.done) || `Cline used ${row.tool}:`;
  const parts = [h("div", { class: "title", text: title }), h("code", { class: "summary", text: row.summary })];
  if (row.partial && row.streamed) parts.push(h("pre", { class: "streamed", "aria-label": "Streaming", text: row.streamed.slice(-4000) }));
  if (row.tool === "execute_command") {
    const state = row.done ? (row.ok === false ? "failed" : "completed") : "running";
    parts.push(h("span", { class: `badge ${state}`, text: state === "running" ? "Running" : state === "failed" ? "Failed" : "Completed" }));
    if (row.output) parts.push(h("pre", { class: "output", "aria-label": "Command output", text: row.output.slice(-50000) }));
  }
  parts.push(images(row), resultOf(row, ctx));
  return h("div", { class: "row tool" }, ...parts);
}

function approval(row, ctx) {
  const title = toolTitle(row.tool, row.done && row.response === "approve") || `Cline wants to use ${row.tool}:`;
  const parts = [h("div", { class: "title", text: title }), h("code", { class: "summary", text: row.summary })];
  if (row.outside) parts.push(h("div", { class: "warn", text: "This path is outside the workspace." }));
  if (row.preview) {
    if (row.tool === "execute_command") {
      parts.push(codeBlock(row.preview, "sh"));
    } else {
      const { added, removed } = diffCounts(row.preview);
      const code = h("code");
      diffLines(code, row.preview);
      parts.push(h("div", { class: "diff-head" }, h("span", { class: "plus", text: `+${added}` }), " ", h("span", { class: "minus", text: `−${removed}` })), h("pre", { class: "diff", "aria-label": "Proposed changes" }, code));
    }
  }
  if (row.content !== null && row.content !== undefined && !row.answered) {
    const area = h("textarea", { class: "edit-content", "aria-label": "Edit the proposed file before saving", rows: "10", spellcheck: "false" });
    area.value = row.edited ?? row.content;
    area.addEventListener("input", () => { row.edited = area.value; });
    const details = h("details", { class: "edit", open: row.editing || false }, h("summary", { text: "Edit before saving" }), area);
    details.addEventListener("toggle", () => { row.editing = details.open; });
    parts.push(details);
  }
  parts.push(answerNote(row));
  if (row.output) parts.push(h("pre", { class: "output", "aria-label": "Command output", text: row.output.slice(-50000) }));
  parts.push(images(row), resultOf(row, ctx));
  return h("div", { class: `row approval${row.answered ? " answered" : ""}` }, ...parts);
}

function answerNote(row) {
  if (!row.answered) return null;
  const words = { approve: "Approved", deny: "Rejected", accept: "Accepted", retry: "Retried", continue: "Continued", act: "Switched to Act", stop: "Stopped", text: "Answered" };
  return h("div", { class: `answer-note ${row.response}`, text: words[row.response] || "Answered" });
}

function checkpoint(row, ctx) {
  const menu = h("div", { class: "restore-menu", role: "menu", hidden: true });
  const choose = (mode) => () => { menu.hidden = true; ctx.restore(row.commit, mode); };
  menu.append(
    button("Restore Files & Task", choose("both"), { role: "menuitem" }),
    button("Restore Files Only", choose("workspace"), { role: "menuitem" }),
    button("Restore Task Only", choose("task"), { role: "menuitem" }),
  );
  const restore = button("Restore", () => { menu.hidden = !menu.hidden; restore.setAttribute("aria-expanded", String(!menu.hidden)); }, { "aria-haspopup": "menu", "aria-expanded": "false" });
  return h("div", { class: "row checkpoint", "data-commit": row.commit },
    h("span", { class: "checkpoint-label", text: "Checkpoint" }),
    h("code", { text: (row.commit || "").slice(0, 8) }),
    button("Compare", () => ctx.compare(row.commit)),
    restore, menu);
}
