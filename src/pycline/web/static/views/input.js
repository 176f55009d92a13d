// The input box: Enter sends, Shift+Enter adds a newline; images by button, paste or drop (up to
// 20, as thumbnails); an @ menu (files and folders by fuzzy search, problems, terminal, git
// changes, URLs) and a / menu (the same commands as the terminal's /help, then workflows); the
// Plan/Act switch and the model button.

import { html } from "../lib/html.js";
import { useEffect, useRef, useState } from "../vendor/hooks.js";
import { api } from "../lib/api.js";
import { openModelPicker } from "./models.js";
import { loadCommands, runCommand } from "./commands.js";
import { QueuedMessages } from "./queued.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {{ label: string, insert: string, hint?: string }} MenuItem
 * @typedef {{ kind: "@" | "/", query: string, start: number }} Trigger
 */

const MAX_IMAGES = 20;
const LIVE = new Set(["running", "waiting"]);
/** @type {MenuItem[]} */
const MENTIONS = [
  { label: "Problems", insert: "@problems " },
  { label: "Terminal", insert: "@terminal " },
  { label: "Git changes", insert: "@git-changes " },
  { label: "URL", insert: "@https://" },
];

/** What is being typed at the caret: an @ mention or a / command at the start.
 * @param {string} before the text before the caret
 * @returns {Trigger | null} */
export function trigger(before) {
  const at = /(^|\s)@([^\s]*)$/.exec(before);
  if (at) return { kind: "@", query: at[2], start: before.length - at[2].length - 1 };
  const slash = /^\/([\w.-]*)$/.exec(before);
  if (slash) return { kind: "/", query: slash[1], start: 0 };
  return null;
}

/** @param {{ store: Store }} props */
export function InputBox({ store }) {
  const area = useRef(/** @type {HTMLTextAreaElement | null} */ (null));
  const file = useRef(/** @type {HTMLInputElement | null} */ (null));
  const [menu, setMenu] = useState(/** @type {{ items: MenuItem[], start: number, index: number } | null} */ (null));
  const asked = useRef(0);
  const t = store.shown;
  const draft = store.draft;

  useEffect(() => {
    /** @param {KeyboardEvent} e */
    const key = (e) => {
      if ((e.metaKey || e.ctrlKey) && e.shiftKey && e.key.toLowerCase() === "a") {
        e.preventDefault();
        store.setMode(store.mode === "plan" ? "act" : "plan");
      }
    };
    document.addEventListener("keydown", key);
    return () => document.removeEventListener("keydown", key);
  }, []);

  const setText = (/** @type {string} */ text) => {
    store.draft.text = text; // typing redraws only this box
  };

  const updateMenu = async () => {
    const el = area.current;
    if (!el) return;
    const found = trigger(el.value.slice(0, el.selectionStart ?? 0));
    if (!found) return setMenu(null);
    const seq = ++asked.current; // a slower answer for an earlier prefix must not win
    /** @type {MenuItem[]} */
    let items;
    if (found.kind === "/") {
      const commands = await loadCommands(store);
      if (seq !== asked.current) return;
      items = commands
        .filter((c) => c.name.toLowerCase().startsWith(found.query.toLowerCase()))
        .map((c) => ({ label: `/${c.name}`, insert: `/${c.name} `, hint: c.help }));
    } else {
      /** @type {{ path: string, type: string }[]} */
      let files = [];
      try {
        files = await api.get(`/api/files?q=${encodeURIComponent(found.query)}`);
      } catch {
        /* the fixed entries still help */
      }
      if (seq !== asked.current) return;
      const fixed = MENTIONS.filter((m) => m.label.toLowerCase().includes(found.query.toLowerCase()));
      items = [...fixed, ...files.slice(0, 30).map((f) => ({ label: f.path, insert: `@/${f.path} `, hint: f.type }))];
    }
    setMenu(items.length ? { items, start: found.start, index: 0 } : null);
  };

  const pick = (/** @type {MenuItem} */ item) => {
    const el = area.current;
    if (!el || !menu) return;
    const end = el.selectionStart ?? el.value.length;
    el.value = el.value.slice(0, menu.start) + item.insert + el.value.slice(end);
    const caret = menu.start + item.insert.length;
    el.selectionStart = el.selectionEnd = caret;
    setText(el.value);
    el.focus();
    setMenu(null);
  };

  /** @param {boolean} [interrupt] stop the running step first */
  const send = (interrupt = false) => {
    const text = draft.text.trim();
    if (!text && !draft.images.length) return;
    const taken = store.takeDraft();
    setMenu(null);
    if (!submit(store, taken.text, taken.images, interrupt)) store.draft = taken;
  };

  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    // Escape or sending also drops a menu still being fetched (the / list comes from the
    // server): arriving after the keys, it would take the next Enter for itself.
    if (e.key === "Escape" || (e.key === "Enter" && !menu)) asked.current++;
    if (menu) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const n = menu.items.length;
        setMenu({ ...menu, index: (menu.index + (e.key === "ArrowDown" ? 1 : n - 1)) % n });
        return;
      }
      if (e.key === "Enter" || e.key === "Tab") {
        e.preventDefault();
        pick(menu.items[menu.index]);
        return;
      }
      if (e.key === "Escape") {
        setMenu(null);
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  };

  /** @param {FileList | File[] | null | undefined} files */
  const addFiles = (files) => {
    for (const f of [...(files || [])]) {
      if (!f.type.startsWith("image/") || store.draft.images.length >= MAX_IMAGES) continue;
      const reader = new FileReader();
      reader.onload = () => {
        store.draft = { ...store.draft, images: [...store.draft.images, String(reader.result)] };
        store.changed();
      };
      reader.readAsDataURL(f);
    }
  };

  const waiting = t && t.status === "waiting";
  const running = !!t && t.status === "running";
  const placeholder = waiting
    ? t.question?.kind === "completion" ? "Type feedback to continue the task…" : "Type a reply (goes along with the button you click)…"
    : running ? "Type a message: it is sent after the running step…"
    : "Type your task here (@ for context, / for commands)…";
  const own = t && LIVE.has(t.status) ? store.summaries.get(t.taskId)?.models : undefined;
  const modelLabel = ((own || store.models)[store.mode] || "").replace(/^None\/None$/, "no model configured");
  const pickModel = () => {
    if (t && LIVE.has(t.status) && store.summaries.has(t.taskId) && !t.background) openModelPicker(store, t.taskId);
    else store.show("settings");
  };
  return html`<${QueuedMessages} store=${store} /><div class="input-box" onDragOver=${(/** @type {DragEvent} */ e) => e.preventDefault()}
      onDrop=${(/** @type {DragEvent} */ e) => { e.preventDefault(); addFiles(e.dataTransfer?.files); }}>
    ${menu ? html`<ul class="menu" role="listbox" aria-label="Suggestions">
      ${menu.items.map((item, i) => html`<li role="option" aria-selected=${String(i === menu.index)} class=${i === menu.index ? "selected" : ""}
          onMouseDown=${(/** @type {MouseEvent} */ e) => { e.preventDefault(); pick(item); }}>
        <span>${item.label}</span>${item.hint ? html`<span class="muted"> ${item.hint}</span>` : null}</li>`)}
    </ul>` : null}
    <div class="thumbs" aria-label="Attached images">${draft.images.map((src, i) => html`<span class="thumb"><img src=${src} alt=${`Image ${i + 1}`} />
      <button type="button" aria-label=${`Remove image ${i + 1}`} onClick=${() => { store.draft = { ...store.draft, images: store.draft.images.filter((_, j) => j !== i) }; store.changed(); }}>×</button></span>`)}</div>
    <div class="input-row"><textarea class="input" rows="3" aria-label="Message" placeholder=${placeholder} ref=${area} value=${draft.text}
      onInput=${(/** @type {Event} */ e) => { setText(/** @type {HTMLTextAreaElement} */ (e.currentTarget).value); updateMenu(); }}
      onKeyDown=${onKey}
      onPaste=${(/** @type {ClipboardEvent} */ e) => {
        const files = [...(e.clipboardData?.files || [])].filter((f) => f.type.startsWith("image/"));
        if (files.length) { e.preventDefault(); addFiles(files); }
      }} /></div>
    ${t ? null : html`<div class="input-row verify-row"><input class="verify" type="text" aria-label="Verify command"
      placeholder="Verify with (optional): a command that must exit 0, e.g. pytest -q" value=${store.verify}
      onInput=${(/** @type {Event} */ e) => { store.verify = /** @type {HTMLInputElement} */ (e.currentTarget).value; }} />
      <label class="auto-mode" title="Commands run unasked in the sandbox with the network off; edits inside the project unasked; the rest asks">
        <input type="checkbox" checked=${store.auto}
          onChange=${(/** @type {Event} */ e) => { store.auto = /** @type {HTMLInputElement} */ (e.currentTarget).checked; store.changed(); }} />
        Auto (sandboxed)</label></div>`}
    <div class="input-tools">
      <button type="button" class="icon" aria-label="Add context" onClick=${() => { const el = area.current; if (el) { el.setRangeText("@", el.selectionStart, el.selectionEnd, "end"); setText(el.value); el.focus(); updateMenu(); } }}>@</button>
      <button type="button" class="icon" aria-label="Add images" onClick=${() => file.current?.click()}>Images</button>
      <input type="file" accept="image/*" multiple hidden aria-label="Add images" ref=${file}
        onChange=${(/** @type {Event} */ e) => { const input = /** @type {HTMLInputElement} */ (e.currentTarget); addFiles(input.files); input.value = ""; }} />
      <div class="mode-switch" role="radiogroup" aria-label="Mode" data-mode=${store.mode}>
        <button type="button" role="radio" aria-checked=${String(store.mode === "plan")} onClick=${() => store.setMode("plan")}>Plan</button>
        <button type="button" role="radio" aria-checked=${String(store.mode === "act")} onClick=${() => store.setMode("act")}>Act</button>
      </div>
      <button type="button" class="link model" aria-label="Model" onClick=${pickModel}>${modelLabel}</button>
      <span class="spacer" />
      ${running ? html`<button type="button" aria-label="Interrupt and send" onClick=${() => send(true)}>Interrupt & send</button>` : null}
      <button type="button" class="primary" aria-label=${running ? "Queue message" : "Send"} onClick=${() => send()}>${running ? "Queue" : "Send"}</button>
    </div>
  </div>`;
}

/** What Enter does with the text: a pycline command runs here; an answer goes to the open
 * question; while the task works, the message is queued for its next turn (with `interrupt`,
 * the running step stops first); anything else starts a task. True once taken.
 * @param {Store} store
 * @param {string} text
 * @param {string[]} images
 * @param {boolean} interrupt */
function submit(store, text, images, interrupt) {
  if (runCommand(store, text)) return true;
  const t = store.shown;
  if (t && t.status === "waiting" && t.question) {
    store.answer(t.taskId, t.question.id, { option: null, text, images });
    return true;
  }
  if (t && t.status === "running") {
    // Queued by the task (a followed background task's own process, too).
    store.command("user_message", t.taskId, { text, images, interrupt });
    return true;
  }
  store.start(text, images).catch(() => {});
  return true;
}
