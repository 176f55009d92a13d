// Settings, saved as they change (as Cline's settings are): the model per mode with a check that
// its server answers, API keys entered but never shown back, auto-approve and features, hooks,
// rules and workflows; and every setting as the settings file's JSON (one button applies it).

import { html } from "../lib/html.js";
import { useEffect, useRef, useState } from "../vendor/hooks.js";
import { api } from "../lib/api.js";
import { count, errorText } from "../lib/store.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {{ provider: string | null, model: string | null, baseUrl: string | null, hasKey: boolean }} ModeSettings
 * @typedef {{ providers: string[], act: ModeSettings, plan: ModeSettings | null,
 *   autoApprove: Record<string, boolean>, features: Record<string, boolean> }} SettingsData
 * @typedef {{ provider: string, model: string, baseUrl: string, apiKey: string }} ModeForm
 */

const AUTO = [
  ["readFiles", "Read project files"], ["readFilesExternally", "Read all files"],
  ["editFiles", "Edit project files"], ["editFilesExternally", "Edit all files"],
  ["executeSafeCommands", "Execute safe commands"], ["executeAllCommands", "Execute all commands"],
  ["useBrowser", "Use the browser"], ["useMcp", "Use MCP servers"],
  ["autoSandboxed", "Auto (sandboxed): commands in the sandbox, network off, and project edits run unasked"],
  ["yolo", "YOLO (approve everything)"],
];
const FEATURES = [["enableCheckpoints", "Checkpoints"], ["notifications", "Notifications"]];
const HOOK_STATES = /** @type {Record<string, string>} */ ({
  on: "on", off: "off (not executable)", untrusted: "not trusted", unreadable: "unreadable", outside: "not run: links out of the project",
});

/** @param {ModeSettings} m
 * @returns {ModeForm} */
const formOf = (m) => ({ provider: m.provider || "", model: m.model || "", baseUrl: m.baseUrl || "", apiKey: "" });

/** @param {{ store: Store }} props */
export function SettingsView({ store }) {
  const shown = store.screen === "settings";
  const [data, setData] = useState(/** @type {SettingsData | null} */ (null));
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (!shown) return;
    api.get("/api/settings").then(setData).catch((e) => store.notify(errorText(e), true));
  }, [shown, generation]);
  return html`<section class="settings" aria-label="Settings" hidden=${!shown}>
    <div class="view-head"><h1>Settings</h1><button type="button" onClick=${() => store.show("chat")}>Done</button></div>
    ${data && shown ? html`<${SettingsForm} key=${generation} store=${store} data=${data} reload=${() => setGeneration(generation + 1)} />` : null}
  </section>`;
}

/** @param {{ store: Store, data: SettingsData, reload: () => void }} props */
function SettingsForm({ store, data, reload }) {
  const form = useRef({
    act: formOf(data.act),
    plan: data.plan ? formOf(data.plan) : null,
    autoApprove: { ...data.autoApprove },
    features: { ...data.features },
  });
  const [separate, setSeparate] = useState(!!data.plan);
  const separateNow = useRef(separate);
  const saving = useRef(Promise.resolve());

  // Each change is saved at once, one save after the other, the whole form each time.
  const save = () => {
    const f = form.current;
    /** @param {ModeForm} m */
    const read = (m) => ({ provider: m.provider, model: m.model || null, baseUrl: m.baseUrl || null, apiKey: m.apiKey || null });
    const body = {
      act: read(f.act),
      plan: separateNow.current && f.plan ? read(f.plan) : null,
      autoApprove: f.autoApprove,
      features: f.features,
    };
    f.act.apiKey = "";
    if (f.plan) f.plan.apiKey = "";
    saving.current = saving.current.then(async () => {
      try {
        const r = await api.post("/api/settings", body);
        store.models = r.models;
        store.notify("Settings saved.");
      } catch (e) {
        store.notify(errorText(e), true);
      }
    });
  };

  return html`<div class="settings-form">
    <h2>API Configuration</h2>
    <${ModeFields} name="act" data=${data} values=${form.current.act} save=${save} />
    <label><input type="checkbox" checked=${separate} onChange=${(/** @type {Event} */ e) => {
      const on = /** @type {HTMLInputElement} */ (e.currentTarget).checked;
      if (on && !form.current.plan) form.current.plan = { ...form.current.act, apiKey: "" };
      separateNow.current = on;
      setSeparate(on);
      save();
    }} /> Use different models for Plan and Act modes</label>
    ${separate && form.current.plan ? html`<${ModeFields} name="plan" data=${data} values=${form.current.plan} save=${save} />` : null}
    <p class="muted">Model changes apply to new tasks.</p>
    <h2>Auto-approve</h2>
    <div class="checks">${AUTO.map(([k, label]) => html`<${Check} label=${label} checked=${!!data.autoApprove[k]} set=${(/** @type {boolean} */ on) => { form.current.autoApprove[k] = on; save(); }} />`)}</div>
    <h2>Features</h2>
    <div class="checks">${FEATURES.map(([k, label]) => html`<${Check} label=${label} checked=${!!data.features[k]} set=${(/** @type {boolean} */ on) => { form.current.features[k] = on; save(); }} />`)}</div>
    <h2>Hooks</h2>
    <${Hooks} store=${store} />
    <h2>Rules and workflows</h2>
    <p class="muted">Switch a rules file or workflow off for this project (global ones: everywhere). Kept in your pycline home, never in the project.</p>
    <${Toggles} store=${store} />
    <h2>All settings</h2>
    <p class="muted">Every setting as <code>pycline config</code> sees it: edit the file's JSON; it is checked before it is saved.</p>
    <${SettingsFile} store=${store} reload=${reload} />
  </div>`;
}

/** A box that keeps what the user set (the screen's data is as it was loaded).
 * @param {{ label: string, checked: boolean, set: (on: boolean) => void }} props */
function Check({ label, checked, set }) {
  const [on, setOn] = useState(checked);
  const change = (/** @type {Event} */ e) => {
    const value = /** @type {HTMLInputElement} */ (e.currentTarget).checked;
    setOn(value);
    set(value);
  };
  return html`<label><input type="checkbox" checked=${on} onChange=${change} /> ${label}</label>`;
}

/** One mode's provider, model, server and key; Check lists the server's models.
 * @param {{ name: "act" | "plan", data: SettingsData, values: ModeForm, save: () => void }} props */
function ModeFields({ name, data, values, save }) {
  const [models, setModels] = useState(/** @type {string[]} */ ([]));
  const [status, setStatus] = useState("");
  const [, redraw] = useState(0);
  // The key as typed: saving takes it out of the form (it is sent once, to the secret store),
  // and a Check right after the change must not race that save for it.
  const typedKey = useRef("");
  const hasKey = !!(name === "act" ? data.act : data.plan || data.act).hasKey;
  /** @param {keyof ModeForm} key */
  const field = (key) => (/** @type {Event} */ e) => {
    values[key] = /** @type {HTMLInputElement} */ (e.currentTarget).value;
    if (key === "apiKey") typedKey.current = values.apiKey;
  };
  const changed = (/** @type {keyof ModeForm} */ key) => (/** @type {Event} */ e) => {
    field(key)(e);
    save();
    if (key === "apiKey") redraw((n) => n + 1);
  };
  const check = async () => {
    setStatus("Checking…");
    try {
      const r = await api.post("/api/settings/check", { provider: values.provider, baseUrl: values.baseUrl || null, apiKey: typedKey.current || null });
      setModels(r.models);
      setStatus(`OK: ${r.models.length} models`);
    } catch (e) {
      setStatus(`Failed: ${errorText(e)}`);
    }
  };
  const providers = data.providers.includes(values.provider) || !values.provider ? data.providers : [values.provider, ...data.providers];
  return html`<fieldset><legend>${name === "act" ? "Act mode" : "Plan mode"}</legend>
    <label>API Provider <select aria-label=${`${name} provider`} value=${values.provider} onChange=${changed("provider")}>
      ${values.provider ? null : html`<option value="">choose…</option>`}
      ${providers.map((p) => html`<option value=${p}>${p}</option>`)}</select></label>
    <label>Model <input aria-label=${`${name} model`} value=${values.model} list=${`models-${name}`} onInput=${field("model")} onChange=${changed("model")} />
      <datalist id=${`models-${name}`}>${models.map((m) => html`<option value=${m} />`)}</datalist></label>
    <label>Base URL <input aria-label=${`${name} base URL`} value=${values.baseUrl} placeholder="default" onInput=${field("baseUrl")} onChange=${changed("baseUrl")} /></label>
    <label>API Key <input type="password" aria-label=${`${name} API key`} autocomplete="off" value=${values.apiKey}
      placeholder=${hasKey || values.apiKey ? "•••••• (saved; type to replace)" : "not set"} onInput=${field("apiKey")} onChange=${changed("apiKey")} /></label>
    <div><button type="button" aria-label=${`Check ${name} server`} onClick=${check}>Check</button> <span class="muted" role="status">${status}</span></div>
  </fieldset>`;
}

/** The hooks that would run (`pycline hooks list`); a project's run only once trusted as they are.
 * @param {{ store: Store }} props */
function Hooks({ store }) {
  const [rows, setRows] = useState(/** @type {{ scope: string, name: string, path: string, state: string }[]} */ ([]));
  const [n, setN] = useState(0);
  useEffect(() => {
    api.get("/api/hooks").then(setRows).catch((e) => store.notify(errorText(e), true));
  }, [n]);
  const trust = async () => {
    try {
      const r = await api.post("/api/hooks/trust");
      store.notify(`Trusted ${count(r.trusted.length, "hook file")}.`);
    } catch (e) {
      store.notify(errorText(e), true);
    }
    setN(n + 1);
  };
  return html`<ul class="hooks" aria-label="Hooks">
    ${rows.length ? rows.map((r) => html`<li><code>${r.name}</code> ${r.scope} · <span class=${r.state === "untrusted" ? "warn" : "muted"}
      aria-label=${`State of ${r.scope} hook ${r.name}`}>${HOOK_STATES[r.state] || r.state}</span> <span class="muted">${r.path}</span></li>`)
      : html`<li class="muted">No hooks.</li>`}
  </ul>
  ${rows.some((r) => r.state === "untrusted") ? html`<button type="button" onClick=${trust}>Trust project hooks</button>` : null}`;
}

/** Every rules file and workflow with an on/off box (`pycline rules|workflows`).
 * @param {{ store: Store }} props */
function Toggles({ store }) {
  const [rows, setRows] = useState(/** @type {{ kind: string, name: string, path: string, global: boolean, on: boolean }[]} */ ([]));
  const [n, setN] = useState(0);
  // A list read while a box's change is on its way, or asked for before a later change, is
  // stale: shown, it would put a box the user just switched back.
  const changes = useRef(0);
  const saving = useRef(0);
  useEffect(() => {
    const asked = changes.current;
    if (saving.current) return;
    api.get("/api/toggles").then((now) => {
      if (changes.current === asked && !saving.current) setRows(now);
    }).catch((e) => store.notify(errorText(e), true));
  }, [n]);
  return html`<ul class="checks toggles" aria-label="Rules and workflows">
    ${rows.length ? rows.map((r) => {
      const what = `${r.global ? "Global" : "Project"} ${r.kind === "rules" ? "rule" : "workflow"} ${r.name}`;
      const set = async (/** @type {Event} */ e) => {
        const on = /** @type {HTMLInputElement} */ (e.currentTarget).checked;
        // Shown at once: a redraw before the list is read again must not put the box back.
        changes.current += 1;
        saving.current += 1;
        setRows((now) => now.map((x) => (x.path === r.path && x.kind === r.kind ? { ...x, on } : x)));
        try {
          await api.post("/api/toggles", { kind: r.kind, path: r.path, on });
        } catch (err) {
          store.notify(errorText(err), true);
        } finally {
          saving.current -= 1;
        }
        setN((k) => k + 1);
      };
      return html`<li><label><input type="checkbox" checked=${r.on} aria-label=${what} onChange=${set} /> ${what}</label> <span class="muted">${r.path}</span></li>`;
    }) : html`<li class="muted">No rules files or workflows.</li>`}
  </ul>`;
}

/** `pycline config list|set`, the whole file at once: checked before it replaces the file.
 * @param {{ store: Store, reload: () => void }} props */
function SettingsFile({ store, reload }) {
  const [scope, setScope] = useState("global");
  const [text, setText] = useState(/** @type {string | null} */ (null));
  const [inForce, setInForce] = useState("");
  useEffect(() => {
    setText(null); // the editor shows once the file is read: nothing typed is overwritten
    api.get(`/api/settings/file?scope=${scope}`).then((r) => {
      setText(JSON.stringify(r.file, null, 2));
      setInForce(JSON.stringify(r.inForce, null, 2));
    }).catch((e) => store.notify(errorText(e), true));
  }, [scope]);
  const apply = async () => {
    let file;
    try {
      file = JSON.parse(text || "{}");
    } catch (e) {
      return store.notify(`Not JSON: ${errorText(e)}`, true);
    }
    try {
      const r = await api.post("/api/settings/file", { scope, file });
      store.models = r.models;
      store.notify("Settings file saved.");
      reload();
    } catch (e) {
      store.notify(errorText(e), true);
    }
  };
  return html`<div class="filters">
      <select aria-label="Settings file" value=${scope} onChange=${(/** @type {Event} */ e) => setScope(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
        <option value="global">Global settings</option><option value="project">This project (.pycline/settings.json)</option>
      </select>
      <button type="button" onClick=${apply}>Apply settings file</button>
    </div>
    ${text === null ? html`<p class="muted">Reading the settings file…</p>` : html`<textarea class="edit-content" rows="12" spellcheck="false" aria-label="Settings JSON" value=${text}
      onInput=${(/** @type {Event} */ e) => setText(/** @type {HTMLTextAreaElement} */ (e.currentTarget).value)} />`}
    <details><summary>Values in force</summary><pre class="wrap" aria-label="Values in force">${inForce}</pre></details>`;
}
