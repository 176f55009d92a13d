// The model picker: another provider or model for the running task, for Act, Plan or both (as the
// terminal's `/model [plan|act] [PROVIDER/]MODEL`). The list comes from the provider's server.

import { h, button } from "./render.js";
import { api } from "./app.js";
import { dialog } from "./chat.js";

const split = (label) => {
  const at = (label || "").indexOf("/");
  return at < 0 ? ["", label || ""] : [label.slice(0, at), label.slice(at + 1)];
};

export function openModelPicker(app, taskId) {
  const current = app.summaries.get(taskId)?.models || app.models || {};
  let mode = app.mode;
  const modes = h("div", { class: "mode-switch", role: "radiogroup", "aria-label": "Mode to change" });
  const provider = h("select", { "aria-label": "Provider" }, ...(app.providers || []).map((p) => h("option", { value: p, text: p })));
  const model = h("input", { "aria-label": "Model name", autocomplete: "off", spellcheck: "false" });
  const list = h("ul", { class: "model-list", role: "listbox", "aria-label": "Models" });
  const status = h("span", { class: "muted", role: "status" });
  const using = h("p", { class: "muted" });
  const fill = () => {
    const [p, m] = split(current[mode === "plan" ? "plan" : "act"]);
    provider.value = p;
    model.value = m;
    list.replaceChildren();
    status.textContent = "";
    for (const b of modes.children) b.setAttribute("aria-checked", String(b.dataset.mode === mode));
    using.textContent = `Act: ${current.act || "?"} · Plan: ${current.plan || "?"}`;
  };
  for (const [m, label] of [["act", "Act"], ["plan", "Plan"], ["both", "Plan and Act"]]) {
    const b = button(label, () => { mode = m; fill(); load(); }, { role: "radio", "data-mode": m });
    modes.append(b);
  }
  let asked = 0;
  const load = async () => {
    const seq = ++asked; // a slower answer for an earlier choice must not overwrite the list
    status.textContent = "Asking the server…";
    const which = mode === "both" ? "act" : mode;
    try {
      const r = await api.get(`/api/tasks/${encodeURIComponent(taskId)}/models?mode=${which}&provider=${encodeURIComponent(provider.value)}`);
      if (seq !== asked) return;
      list.replaceChildren(...r.models.map((name) => {
        const li = h("li", { role: "option", "aria-selected": String(name === model.value), tabindex: "0", text: name });
        const pick = () => { model.value = name; for (const o of list.children) o.setAttribute("aria-selected", String(o === li)); };
        li.addEventListener("click", pick);
        li.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
        return li;
      }));
      status.textContent = `${r.models.length} models`;
    } catch (e) {
      if (seq === asked) status.textContent = `Failed: ${e.message}`;
    }
  };
  provider.addEventListener("change", () => { list.replaceChildren(); load(); });
  const apply = button("Use this model", async () => {
    try {
      const name = model.value.trim();
      await app.request("set_model", taskId, { mode, model: name && provider.value ? `${provider.value}/${name}` : name });
      app.notify(`${mode === "both" ? "Plan and Act" : mode === "plan" ? "Plan" : "Act"} now use ${provider.value}/${model.value}.`);
      d.remove();
    } catch { /* the error is shown as a notification */ }
  }, { class: "primary" });
  const d = dialog("Model for this task", [using, modes,
    h("div", { class: "model-form" }, h("label", {}, "API Provider ", provider), h("label", {}, "Model ", model),
      button("List models", load), " ", status),
    list, h("div", { class: "form-actions" }, apply)]);
  fill();
  load();
  return d;
}
