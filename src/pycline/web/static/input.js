// The input box: Enter sends, Shift+Enter adds a newline; images by button, paste or drop (up to
// 20, as thumbnails); an @ menu (files and folders by fuzzy search, problems, terminal, git
// changes, URLs) and a / menu (slash commands); the Plan/Act switch and the model button.

import { h, button } from "./render.js";
import { api } from "./app.js";
import { openModelPicker } from "./models.js";

const MAX_IMAGES = 20;
const MENTIONS = [
  { label: "Problems", insert: "@problems " },
  { label: "Terminal", insert: "@terminal " },
  { label: "Git changes", insert: "@git-changes " },
  { label: "URL", insert: "@https://" },
];
const SLASH = [
  { label: "/newtask", insert: "/newtask ", hint: "start a new task with this task's context" },
  { label: "/smol", insert: "/smol ", hint: "compact the conversation" },
  { label: "/compact", insert: "/compact ", hint: "compact the conversation" },
  { label: "/deep-planning", insert: "/deep-planning ", hint: "plan thoroughly before acting" },
  { label: "/newrule", insert: "/newrule ", hint: "write a rule for this project" },
  { label: "/explain-changes", insert: "/explain-changes ", hint: "explain the changes made" },
  { label: "/reportbug", insert: "/reportbug ", hint: "report a bug" },
];

export class InputBox {
  constructor(app, { send }) {
    this.app = app;
    this.sendTo = send;
    this.images = [];
    this.menuItems = [];
    this.menuIndex = 0;
    this.area = h("textarea", { class: "input", rows: "3", "aria-label": "Message", placeholder: "Type your task here…" });
    this.thumbs = h("div", { class: "thumbs", "aria-label": "Attached images" });
    this.menu = h("ul", { class: "menu", role: "listbox", "aria-label": "Suggestions", hidden: true });
    this.file = h("input", { type: "file", accept: "image/*", multiple: true, hidden: true, "aria-label": "Add images" });
    this.sendButton = button("Send", () => this.send(), { class: "primary", "aria-label": "Send" });
    this.planSwitch = h("div", { class: "mode-switch", role: "radiogroup", "aria-label": "Mode" });
    this.planButton = button("Plan", () => this.setMode("plan"), { role: "radio" });
    this.actButton = button("Act", () => this.setMode("act"), { role: "radio" });
    this.planSwitch.append(this.planButton, this.actButton);
    this.modelButton = button("model", () => this.pickModel(), { class: "link model", "aria-label": "Model" });
    this.el = h("div", { class: "input-box" },
      this.menu, this.thumbs,
      h("div", { class: "input-row" }, this.area),
      h("div", { class: "input-tools" },
        button("@", () => this.insert("@"), { "aria-label": "Add context", class: "icon" }),
        button("Images", () => this.file.click(), { "aria-label": "Add images", class: "icon" }),
        this.file, this.planSwitch, this.modelButton, h("span", { class: "spacer" }), this.sendButton));
    this.area.addEventListener("keydown", (e) => this.key(e));
    this.area.addEventListener("input", () => this.updateMenu());
    this.area.addEventListener("paste", (e) => this.paste(e));
    this.el.addEventListener("dragover", (e) => e.preventDefault());
    this.el.addEventListener("drop", (e) => { e.preventDefault(); this.addFiles(e.dataTransfer.files); });
    this.file.addEventListener("change", () => { this.addFiles(this.file.files); this.file.value = ""; });
    document.addEventListener("keydown", (e) => {
      if ((e.metaKey || e.ctrlKey) && e.shiftKey && e.key.toLowerCase() === "a") {
        e.preventDefault();
        this.setMode(this.app.mode === "plan" ? "act" : "plan");
      }
    });
    this.setMode("act");
  }

  setModel(models, mode) {
    const t = this.app.views?.chat.transcript;
    const own = t && this.app.summaries.get(t.taskId)?.models;
    const label = ((own && ["running", "waiting"].includes(t.status) ? own : models)[mode] || "");
    const text = label.replace(/^None\/None$/, "no model configured");
    if (this.modelButton.textContent !== text) this.modelButton.textContent = text;
  }

  // A running task's model is switched for it alone; otherwise Settings choose it for new tasks.
  pickModel() {
    const t = this.app.views?.chat.transcript;
    if (t && ["running", "waiting"].includes(t.status) && this.app.summaries.has(t.taskId) && !t.background) openModelPicker(this.app, t.taskId);
    else this.app.show("settings");
  }

  setMode(mode) {
    this.app.mode = mode;
    this.planButton.setAttribute("aria-checked", String(mode === "plan"));
    this.actButton.setAttribute("aria-checked", String(mode === "act"));
    this.planSwitch.dataset.mode = mode;
    this.setModel(this.app.models || {}, mode);
    const t = this.app.views?.chat.transcript;
    if (t && ["running", "waiting"].includes(t.status) && t.mode !== mode && !t.background) this.app.action("set_mode", t.taskId, { mode });
  }

  setEnabled(enabled, placeholder) {
    this.sendButton.disabled = !enabled;
    this.area.placeholder = placeholder;
  }

  setText(text) {
    this.area.value = text;
    this.area.focus();
  }

  quote(text) {
    const quoted = text.split("\n").map((line) => `> ${line}`).join("\n");
    const rest = this.area.value.trim();
    this.area.value = `${quoted}\n\n${rest}`;
    this.area.focus();
    this.area.selectionStart = this.area.selectionEnd = this.area.value.length;
  }

  insert(text) {
    const at = this.area.selectionStart ?? this.area.value.length;
    this.area.value = this.area.value.slice(0, at) + text + this.area.value.slice(at);
    this.area.focus();
    this.area.selectionStart = this.area.selectionEnd = at + text.length;
    this.updateMenu();
  }

  take() {
    const out = { text: this.area.value.trim(), images: this.images.slice() };
    this.area.value = "";
    this.images = [];
    this.renderThumbs();
    this.closeMenu();
    return out;
  }

  send() {
    const text = this.area.value.trim();
    if (!text && !this.images.length) return;
    if (this.sendButton.disabled) return;
    const taken = this.take();
    if (!this.sendTo(taken.text, taken.images)) {
      this.area.value = taken.text; // not accepted now (the task is busy): keep what was typed
      this.images = taken.images;
      this.renderThumbs();
    }
  }

  key(e) {
    if (!this.menu.hidden) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const n = this.menuItems.length;
        this.menuIndex = (this.menuIndex + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
        this.renderMenu();
        return;
      }
      if (e.key === "Enter" || e.key === "Tab") {
        e.preventDefault();
        this.pick(this.menuItems[this.menuIndex]);
        return;
      }
      if (e.key === "Escape") {
        this.closeMenu();
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.send();
    }
  }

  // --- images ---------------------------------------------------------------------------------

  paste(e) {
    const files = [...(e.clipboardData?.files || [])].filter((f) => f.type.startsWith("image/"));
    if (files.length) {
      e.preventDefault();
      this.addFiles(files);
    }
  }

  addFiles(files) {
    for (const f of [...files]) {
      if (!f.type.startsWith("image/") || this.images.length >= MAX_IMAGES) continue;
      const reader = new FileReader();
      reader.onload = () => { this.images.push(reader.result); this.renderThumbs(); };
      reader.readAsDataURL(f);
    }
  }

  renderThumbs() {
    this.thumbs.replaceChildren(...this.images.map((src, i) => h("span", { class: "thumb" },
      h("img", { src, alt: `Image ${i + 1}` }),
      button("×", () => { this.images.splice(i, 1); this.renderThumbs(); }, { "aria-label": `Remove image ${i + 1}` }))));
  }

  // --- @ and / menus --------------------------------------------------------------------------

  trigger() {
    const before = this.area.value.slice(0, this.area.selectionStart ?? 0);
    const at = /(^|\s)@([^\s]*)$/.exec(before);
    if (at) return { kind: "@", query: at[2], start: before.length - at[2].length - 1 };
    const slash = /^\/([\w-]*)$/.exec(before);
    if (slash) return { kind: "/", query: slash[1], start: 0 };
    return null;
  }

  async updateMenu() {
    const t = this.trigger();
    if (!t) return this.closeMenu();
    let items;
    if (t.kind === "/") {
      const seq = (this.menuSeq = (this.menuSeq || 0) + 1);
      let flows = [];
      try {
        flows = await api.get("/api/workflows");
      } catch { /* the commands still help */ }
      if (seq !== this.menuSeq) return;
      const all = [...SLASH, ...flows.map((w) => ({ label: `/${w.name}`, insert: `/${w.name} `, hint: w.hint ? `workflow: ${w.hint}` : "workflow" }))];
      items = all.filter((s) => s.label.slice(1).toLowerCase().startsWith(t.query.toLowerCase()));
    } else {
      const seq = (this.menuSeq = (this.menuSeq || 0) + 1);
      let files = [];
      try {
        files = await api.get(`/api/files?q=${encodeURIComponent(t.query)}`);
      } catch { /* offline: the fixed entries still help */ }
      if (seq !== this.menuSeq) return;
      const fixed = MENTIONS.filter((m) => m.label.toLowerCase().includes(t.query.toLowerCase()));
      items = [...fixed, ...files.slice(0, 30).map((f) => ({ label: f.path, insert: `@/${f.path} `, hint: f.type }))];
    }
    this.menuItems = items;
    this.menuStart = t.start;
    this.menuIndex = 0;
    if (!items.length) return this.closeMenu();
    this.renderMenu();
  }

  renderMenu() {
    this.menu.hidden = false;
    this.menu.replaceChildren(...this.menuItems.map((item, i) => {
      const li = h("li", { role: "option", "aria-selected": String(i === this.menuIndex), class: i === this.menuIndex ? "selected" : "" }, h("span", { text: item.label }), item.hint ? h("span", { class: "muted", text: ` ${item.hint}` }) : null);
      li.addEventListener("mousedown", (e) => { e.preventDefault(); this.pick(item); });
      return li;
    }));
  }

  pick(item) {
    const end = this.area.selectionStart ?? this.area.value.length;
    this.area.value = this.area.value.slice(0, this.menuStart) + item.insert + this.area.value.slice(end);
    const caret = this.menuStart + item.insert.length;
    this.area.selectionStart = this.area.selectionEnd = caret;
    this.area.focus();
    this.closeMenu();
  }

  closeMenu() {
    this.menu.hidden = true;
    this.menuItems = [];
  }
}
