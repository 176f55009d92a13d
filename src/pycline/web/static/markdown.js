// A small Markdown renderer that builds DOM nodes and never parses HTML: model text is untrusted,
// so every piece of it reaches the page as a text node. Covers what models write: headings,
// paragraphs, lists, block quotes, fenced code (highlighted), tables, inline code, bold, italics,
// links (http/https only), and rules.

import { highlight } from "./highlight.js";

const el = (tag, cls) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  return node;
};

export function renderMarkdown(text) {
  const root = el("div", "md");
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  let para = [];
  const flush = () => {
    if (para.length) {
      const p = el("p");
      inline(p, para.join("\n"));
      root.append(p);
      para = [];
    }
  };
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^(\s*)(```+|~~~+)\s*([\w+#.-]*)/.exec(line);
    if (fence) {
      flush();
      const marker = fence[2];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(marker)) body.push(lines[i++]);
      i++;
      root.append(codeBlock(body.join("\n"), fence[3]));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const h = el(`h${Math.min(heading[1].length + 2, 6)}`);
      inline(h, heading[2]);
      root.append(h);
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      root.append(el("hr"));
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      flush();
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*>\s?/, ""));
      const q = el("blockquote");
      q.append(renderMarkdown(quoted.join("\n")));
      root.append(q);
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      flush();
      const ordered = /^\s*\d/.test(line);
      const list = el(ordered ? "ol" : "ul");
      while (i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i])) {
        const li = el("li");
        let item = lines[i++].replace(/^\s*([-*+]|\d+[.)])\s+/, "");
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*+]|\d+[.)])\s+/.test(lines[i])) {
          item += "\n" + lines[i++].trim();
        }
        const task = /^\[([ xX])\]\s+/.exec(item);
        if (task) {
          const box = el("input");
          box.type = "checkbox";
          box.disabled = true;
          box.checked = task[1] !== " ";
          box.setAttribute("aria-label", "done");
          li.append(box, " ");
          item = item.slice(task[0].length);
        }
        inline(li, item);
        list.append(li);
      }
      root.append(list);
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line) && i + 1 < lines.length && /^\s*\|?\s*:?-+/.test(lines[i + 1])) {
      flush();
      const rows = [];
      while (i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i])) rows.push(lines[i++]);
      root.append(table(rows));
      continue;
    }
    if (!line.trim()) {
      flush();
      i++;
      continue;
    }
    para.push(line);
    i++;
  }
  flush();
  return root;
}

function cells(row) {
  return row.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

function table(rows) {
  const t = el("table");
  const head = el("thead");
  const tr = el("tr");
  for (const c of cells(rows[0])) {
    const th = el("th");
    inline(th, c);
    tr.append(th);
  }
  head.append(tr);
  const body = el("tbody");
  for (const row of rows.slice(2)) {
    const r = el("tr");
    for (const c of cells(row)) {
      const td = el("td");
      inline(td, c);
      r.append(td);
    }
    body.append(r);
  }
  t.append(head, body);
  return t;
}

export function codeBlock(code, lang) {
  const wrap = el("div", "code-block");
  const bar = el("div", "code-bar");
  const label = el("span", "code-lang");
  label.textContent = lang || "text";
  const copy = el("button", "link");
  copy.type = "button";
  copy.textContent = "Copy";
  copy.setAttribute("aria-label", "Copy code");
  copy.addEventListener("click", () => navigator.clipboard?.writeText(code));
  bar.append(label, copy);
  const pre = el("pre");
  const c = el("code");
  highlight(c, code, lang);
  pre.append(c);
  wrap.append(bar, pre);
  return wrap;
}

// Inline spans: `code`, **bold**, *italic*/_italic_, [text](url), bare URLs.
const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s][^*]*?)\*|\b_([^_\s][^_]*?)_\b|\[([^\]]+)\]\(([^)\s]+)\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;

export function inline(parent, text) {
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) parent.append(text.slice(last, m.index));
    if (m[1]) {
      const code = el("code");
      code.textContent = m[2];
      parent.append(code);
    } else if (m[3] || m[4]) {
      const b = el("strong");
      inline(b, m[3] || m[4]);
      parent.append(b);
    } else if (m[5] || m[6]) {
      const e = el("em");
      inline(e, m[5] || m[6]);
      parent.append(e);
    } else if (m[7]) {
      parent.append(link(m[7], m[8]));
    } else if (m[9]) {
      parent.append(link(m[9], m[9]));
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) parent.append(text.slice(last));
}

function link(label, href) {
  if (!/^https?:\/\//i.test(href)) return document.createTextNode(label);
  const a = el("a");
  a.href = href;
  a.textContent = label;
  a.target = "_blank";
  a.rel = "noopener noreferrer";
  return a;
}
