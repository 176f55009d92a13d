// Settings: the model per mode (with a check that the server answers and a list of its models),
// API keys entered but never shown back, auto-approve toggles and features.

import { h, button } from "./render.js";
import { api } from "./app.js";

const AUTO = [
  ["readFiles", "Read project files"], ["readFilesExternally", "Read all files"],
  ["editFiles", "Edit project files"], ["editFilesExternally", "Edit all files"],
  ["executeSafeCommands", "Execute safe commands"], ["executeAllCommands", "Execute all commands"],
  ["useBrowser", "Use the browser"], ["useMcp", "Use MCP servers"], ["yolo", "YOLO (approve everything)"],
];
const FEATURES = [["enableCheckpoints", "Checkpoints"], ["notifications", "Notifications"]];

export class SettingsView {
  constructor(app) {
    this.app = app;
    this.form = h("form", { class: "settings-form", "aria-label": "Settings" });
    this.el = h("section", { class: "settings", "aria-label": "Settings" },
      h("div", { class: "view-head" }, h("h1", { text: "Settings" }), button("Done", () => app.show("chat"))), this.form);
    this.form.addEventListener("submit", (e) => { e.preventDefault(); this.save(); });
  }

  async opened() {
    try {
      this.data = await api.get("/api/settings");
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    this.render();
  }

  modeFields(mode, cfg) {
    const provider = h("select", { "aria-label": `${mode} provider` }, ...this.data.providers.map((p) => h("option", { value: p, text: p, selected: p === cfg.provider })));
    const model = h("input", { "aria-label": `${mode} model`, value: cfg.model || "", list: `models-${mode}` });
    const models = h("datalist", { id: `models-${mode}` });
    const baseUrl = h("input", { "aria-label": `${mode} base URL`, value: cfg.baseUrl || "", placeholder: "default" });
    const key = h("input", { type: "password", "aria-label": `${mode} API key`, autocomplete: "off", placeholder: cfg.hasKey ? "•••••• (saved; type to replace)" : "not set" });
    const status = h("span", { class: "muted", role: "status" });
    const check = button("Check", async () => {
      status.textContent = "Checking…";
      try {
        const r = await api.post("/api/settings/check", { provider: provider.value, baseUrl: baseUrl.value || null, apiKey: key.value || null });
        models.replaceChildren(...r.models.map((m) => h("option", { value: m })));
        status.textContent = `OK: ${r.models.length} models`;
      } catch (e) {
        status.textContent = `Failed: ${e.message}`;
      }
    }, { "aria-label": `Check ${mode} server` });
    this.fields[mode] = { provider, model, baseUrl, key };
    return h("fieldset", {}, h("legend", { text: mode === "act" ? "Act mode" : "Plan mode" }),
      h("label", {}, "API Provider ", provider), h("label", {}, "Model ", model, models),
      h("label", {}, "Base URL ", baseUrl), h("label", {}, "API Key ", key), h("div", {}, check, " ", status));
  }

  render() {
    const d = this.data;
    this.fields = {};
    this.separate = h("input", { type: "checkbox", id: "sep-plan", checked: !!d.plan });
    const plan = this.modeFields("plan", d.plan || d.act);
    plan.hidden = !d.plan;
    this.separate.addEventListener("change", () => { plan.hidden = !this.separate.checked; });
    this.auto = {};
    const autos = AUTO.map(([k, label]) => {
      const box = h("input", { type: "checkbox", id: `auto-${k}`, checked: !!d.autoApprove[k] });
      this.auto[k] = box;
      return h("label", { for: `auto-${k}` }, box, ` ${label}`);
    });
    this.features = {};
    const feats = FEATURES.map(([k, label]) => {
      const box = h("input", { type: "checkbox", id: `feat-${k}`, checked: !!d.features[k] });
      this.features[k] = box;
      return h("label", { for: `feat-${k}` }, box, ` ${label}`);
    });
    this.scope = h("select", { "aria-label": "Settings file" }, h("option", { value: "global", text: "Global settings" }), h("option", { value: "project", text: "This project (.pycline/settings.json)" }));
    this.fileText = h("textarea", { class: "edit-content", rows: "12", spellcheck: "false", "aria-label": "Settings JSON" });
    this.inForce = h("pre", { class: "wrap", "aria-label": "Values in force" });
    this.scope.addEventListener("change", () => this.loadFile());
    this.loadFile();
    this.hooks = h("ul", { class: "hooks", "aria-label": "Hooks" });
    this.trustHooks = button("Trust project hooks", () => this.trust(), { hidden: true });
    this.loadHooks();
    this.toggles = h("ul", { class: "checks toggles", "aria-label": "Rules and workflows" });
    this.loadToggles();
    this.form.replaceChildren(
      h("h2", { text: "API Configuration" }), this.modeFields("act", d.act),
      h("label", { for: "sep-plan" }, this.separate, " Use different models for Plan and Act modes"), plan,
      h("h2", { text: "Auto-approve" }), h("div", { class: "checks" }, ...autos),
      h("h2", { text: "Features" }), h("div", { class: "checks" }, ...feats),
      h("h2", { text: "Hooks" }), this.hooks, this.trustHooks,
      h("h2", { text: "Rules and workflows" }),
      h("p", { class: "muted", text: "Switch a rules file or workflow off for this project (global ones: everywhere). Kept in your pycline home, never in the project." }),
      this.toggles,
      h("h2", { text: "All settings" }),
      h("p", { class: "muted", text: "Every setting as `pycline config` sees it: edit the file's JSON; it is checked before it is saved." }),
      h("div", { class: "filters" }, this.scope, button("Apply settings file", () => this.saveFile())), this.fileText,
      h("details", {}, h("summary", { text: "Values in force" }), this.inForce),
      h("div", { class: "form-actions" }, button("Save", undefined, { class: "primary", type: "submit" })),
      h("p", { class: "muted", text: "Model changes apply to new tasks." }));
  }

  // The hooks that would run (`pycline hooks list`); a project's run only once trusted as they are.
  async loadHooks() {
    let rows = [];
    try {
      rows = await api.get("/api/hooks");
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    const words = { on: "on", off: "off (not executable)", untrusted: "not trusted", unreadable: "unreadable", outside: "not run: links out of the project" };
    this.hooks.replaceChildren(...(rows.length ? rows.map((r) => h("li", {},
      h("code", { text: r.name }), ` ${r.scope} · `, h("span", { class: r.state === "untrusted" ? "warn" : "muted", "aria-label": `State of ${r.scope} hook ${r.name}`, text: words[r.state] || r.state }), " ", h("span", { class: "muted", text: r.path })))
      : [h("li", { class: "muted", text: "No hooks." })]));
    this.trustHooks.hidden = !rows.some((r) => r.state === "untrusted");
  }

  // Every rules file and workflow with an on/off box (`pycline rules|workflows`); a change is saved at once.
  async loadToggles() {
    let rows = [];
    try {
      rows = await api.get("/api/toggles");
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    this.toggles.replaceChildren(...(rows.length ? rows.map((r, i) => {
      const what = `${r.global ? "Global" : "Project"} ${r.kind === "rules" ? "rule" : "workflow"} ${r.name}`;
      const box = h("input", { type: "checkbox", id: `toggle-${i}`, checked: r.on, "aria-label": what });
      box.addEventListener("change", async () => {
        try {
          await api.post("/api/toggles", { kind: r.kind, path: r.path, on: box.checked });
        } catch (e) {
          this.app.notify(e.message, true);
        }
        this.loadToggles();
      });
      return h("li", {}, h("label", { for: `toggle-${i}` }, box, ` ${what}`), " ", h("span", { class: "muted", text: r.path }));
    }) : [h("li", { class: "muted", text: "No rules files or workflows." })]));
  }

  async loadFile() {
    try {
      const r = await api.get(`/api/settings/file?scope=${this.scope.value}`);
      this.fileText.value = JSON.stringify(r.file, null, 2);
      this.inForce.textContent = JSON.stringify(r.inForce, null, 2);
    } catch (e) {
      this.app.notify(e.message, true);
    }
  }

  async saveFile() {
    let file;
    try {
      file = JSON.parse(this.fileText.value || "{}");
    } catch (e) {
      return this.app.notify(`Not JSON: ${e.message}`, true);
    }
    try {
      const r = await api.post("/api/settings/file", { scope: this.scope.value, file });
      this.app.models = r.models;
      this.app.views.chat.refreshModel();
      this.app.notify("Settings file saved.");
      this.opened();
    } catch (e) {
      this.app.notify(e.message, true);
    }
  }

  async trust() {
    try {
      const r = await api.post("/api/hooks/trust");
      this.app.notify(`Trusted ${r.trusted.length} hook file(s).`);
    } catch (e) {
      this.app.notify(e.message, true);
    }
    this.loadHooks();
  }

  async save() {
    const read = (m) => {
      const f = this.fields[m];
      return { provider: f.provider.value, model: f.model.value || null, baseUrl: f.baseUrl.value || null, apiKey: f.key.value || null };
    };
    const body = {
      act: read("act"),
      plan: this.separate.checked ? read("plan") : null,
      autoApprove: Object.fromEntries(Object.entries(this.auto).map(([k, b]) => [k, b.checked])),
      features: Object.fromEntries(Object.entries(this.features).map(([k, b]) => [k, b.checked])),
    };
    try {
      const r = await api.post("/api/settings", body);
      this.app.models = r.models;
      this.app.views.chat.refreshModel();
      this.app.notify("Settings saved.");
      this.opened();
    } catch (e) {
      this.app.notify(e.message, true);
    }
  }
}
