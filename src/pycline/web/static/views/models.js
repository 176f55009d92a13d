// The model picker: another provider or model for the running task, for Act, Plan or both (as the
// terminal's `/model [plan|act] [PROVIDER/]MODEL`). The list comes from the provider's server.

import { html } from "../lib/html.js";
import { useEffect, useRef, useState } from "../vendor/hooks.js";
import { api, enc } from "../lib/api.js";

/** @typedef {import("../lib/store.js").Store} Store */

/** @param {string | undefined} label */
const split = (label) => {
  const at = (label || "").indexOf("/");
  return at < 0 ? ["", label || ""] : [(label || "").slice(0, at), (label || "").slice(at + 1)];
};

/** @param {Store} store
 * @param {string} taskId */
export function openModelPicker(store, taskId) {
  const dialog = store.openDialog("Model for this task", () => html`<${Picker} store=${store} taskId=${taskId} close=${() => store.closeDialog(dialog)} />`);
  return dialog;
}

/** @param {{ store: Store, taskId: string, close: () => void }} props */
function Picker({ store, taskId, close }) {
  const current = store.summaries.get(taskId)?.models || store.models || {};
  const [mode, setMode] = useState(/** @type {"act" | "plan" | "both"} */ (store.mode));
  const initial = split(current[mode === "plan" ? "plan" : "act"]);
  const [provider, setProvider] = useState(initial[0]);
  const [model, setModel] = useState(initial[1]);
  const [models, setModels] = useState(/** @type {string[]} */ ([]));
  const [status, setStatus] = useState("");
  const asked = useRef(0);

  const load = async (/** @type {string} */ which, /** @type {string} */ prov) => {
    const seq = ++asked.current; // a slower answer for an earlier choice must not overwrite the list
    setStatus("Asking the server…");
    try {
      const r = await api.get(`/api/tasks/${enc(taskId)}/models?mode=${which}&provider=${encodeURIComponent(prov)}`);
      if (seq !== asked.current) return;
      setModels(r.models);
      setStatus(`${r.models.length} models`);
    } catch (e) {
      if (seq === asked.current) setStatus(`Failed: ${e instanceof Error ? e.message : e}`);
    }
  };
  useEffect(() => {
    load(mode === "both" ? "act" : mode, provider);
  }, []);
  const choose = (/** @type {"act" | "plan" | "both"} */ m) => {
    const [p, name] = split(current[m === "plan" ? "plan" : "act"]);
    setMode(m);
    setProvider(p);
    setModel(name);
    setModels([]);
    load(m === "both" ? "act" : m, p);
  };
  const apply = async () => {
    const name = model.trim();
    try {
      await store.request("set_model", taskId, { mode, model: name && provider ? `${provider}/${name}` : name });
      store.notify(`${mode === "both" ? "Plan and Act" : mode === "plan" ? "Plan" : "Act"} now use ${provider}/${model}.`);
      close();
    } catch {
      /* the error is shown as a notification */
    }
  };
  return html`<p class="muted">Act: ${current.act || "?"} · Plan: ${current.plan || "?"}</p>
    <div class="mode-switch" role="radiogroup" aria-label="Mode to change">
      ${(/** @type {const} */ ([["act", "Act"], ["plan", "Plan"], ["both", "Plan and Act"]])).map(([m, label]) =>
        html`<button type="button" role="radio" aria-checked=${String(m === mode)} onClick=${() => choose(m)}>${label}</button>`)}
    </div>
    <div class="model-form">
      <label>API Provider <select aria-label="Provider" value=${provider} onChange=${(/** @type {Event} */ e) => {
        const p = /** @type {HTMLSelectElement} */ (e.currentTarget).value;
        setProvider(p);
        setModels([]);
        load(mode === "both" ? "act" : mode, p);
      }}>${store.providers.map((p) => html`<option value=${p}>${p}</option>`)}</select></label>
      <label>Model <input aria-label="Model name" autocomplete="off" spellcheck="false" value=${model} onInput=${(/** @type {Event} */ e) => setModel(/** @type {HTMLInputElement} */ (e.currentTarget).value)} /></label>
      <button type="button" onClick=${() => load(mode === "both" ? "act" : mode, provider)}>List models</button> <span class="muted" role="status">${status}</span>
    </div>
    <ul class="model-list" role="listbox" aria-label="Models">
      ${models.map((name) => html`<li role="option" tabindex="0" aria-selected=${String(name === model)} onClick=${() => setModel(name)}
        onKeyDown=${(/** @type {KeyboardEvent} */ e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); setModel(name); } }}>${name}</li>`)}
    </ul>
    <div class="form-actions"><button type="button" class="primary" onClick=${apply}>Use this model</button></div>`;
}
