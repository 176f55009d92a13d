// MCP Servers: each server's status, tools and resources; enable/disable, restart, per-tool
// auto-approve; add a server; trust the project's MCP file.

import { h, button } from "./render.js";
import { api } from "./app.js";

export class McpView {
  constructor(app) {
    this.app = app;
    this.expanded = new Set(); // which Tools/Resources sections stay open across refreshes
    this.list = h("div", { class: "mcp-list" });
    this.banner = h("div", { class: "banner", hidden: true });
    this.el = h("section", { class: "mcp", "aria-label": "MCP Servers" },
      h("div", { class: "view-head" }, h("h1", { text: "MCP Servers" }), button("Done", () => app.show("chat"))),
      this.banner, this.list, this.addForm());
  }

  async opened() {
    let data;
    try {
      data = await api.get("/api/mcp");
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    this.banner.hidden = !data.untrusted;
    if (data.untrusted) {
      this.banner.replaceChildren(h("span", { text: `The project's MCP file ${data.untrusted} is not trusted, so its servers were not started.` }), " ",
        button("Trust project file", () => this.post("/api/mcp/trust", {}), { class: "primary" }));
    }
    this.all = !!data.allAutoApproved;
    const note = this.all
      ? [h("p", { class: "warn", role: "note", text: "Every MCP tool runs without asking: \"Use MCP servers\" (useMcp) is on in the auto-approve settings." })]
      : [h("p", { class: "muted", role: "note", text: "A tool asks before it runs unless it is set to always allow." })];
    this.list.replaceChildren(...note, ...(data.servers.length ? data.servers.map((s) => this.server(s)) : [h("p", { class: "muted", text: "No MCP servers configured." })]));
  }

  async post(path, body) {
    try {
      await api.post(path, body);
    } catch (e) {
      this.app.notify(e.message, true);
    }
    this.opened();
  }

  server(s) {
    const name = encodeURIComponent(s.name);
    const enabled = h("input", { type: "checkbox", role: "switch", checked: s.status !== "disabled", "aria-label": `Enable ${s.name}` });
    enabled.addEventListener("change", () => this.post(`/api/mcp/${name}/enabled`, { enabled: enabled.checked }));
    const tools = h("ul", { class: "mcp-tools", "aria-label": `Tools of ${s.name}` }, ...s.tools.map((t) => {
      // With useMcp on the box shows what happens (it runs unasked), and cannot say otherwise.
      const box = h("input", { type: "checkbox", checked: this.all || s.autoApprove.includes(t.name), disabled: this.all, "aria-label": `Always allow ${t.name}` });
      box.addEventListener("change", () => this.post(`/api/mcp/${name}/auto-approve`, { tool: t.name, approve: box.checked }));
      return h("li", {}, h("code", { text: t.name }), h("span", { class: "muted", text: ` ${t.description || ""}` }), h("label", {}, box, " Always allow"));
    }));
    const resources = h("ul", { class: "mcp-resources", "aria-label": `Resources of ${s.name}` }, ...s.resources.map((r) => h("li", {}, h("code", { text: r.uri }), h("span", { class: "muted", text: ` ${r.name || ""}` }))));
    return h("div", { class: "mcp-server" },
      h("div", { class: "mcp-head" }, h("span", { class: `dot ${s.status}`, "aria-hidden": "true" }), h("strong", { text: s.name }), h("span", { class: "muted", text: ` ${s.status}${s.error ? ": " + s.error : ""}` }), h("span", { class: "spacer" }), enabled,
        button("Restart", () => this.post(`/api/mcp/${name}/restart`, {}), { "aria-label": `Restart ${s.name}` }),
        button("Delete", () => { if (confirm(`Delete the MCP server ${s.name}?`)) this.post(`/api/mcp/${name}/delete`, {}); }, { "aria-label": `Delete ${s.name}`, class: "secondary" })),
      this.section(`${s.name}/tools`, `Tools (${s.tools.length})`, tools),
      this.section(`${s.name}/resources`, `Resources (${s.resources.length})`, resources));
  }

  section(key, title, body) {
    const details = h("details", { open: this.expanded.has(key) }, h("summary", { text: title }), body);
    details.addEventListener("toggle", () => (details.open ? this.expanded.add(key) : this.expanded.delete(key)));
    return details;
  }

  addForm() {
    const name = h("input", { "aria-label": "Server name", placeholder: "name" });
    const command = h("input", { "aria-label": "Command or URL", placeholder: "npx -y some-mcp-server  or  https://host/mcp" });
    const form = h("form", { class: "mcp-add", "aria-label": "Add server" }, h("h2", { text: "Add server" }), name, command, button("Add", null, { type: "submit" }));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.post("/api/mcp/add", { name: name.value, command: command.value });
    });
    return form;
  }
}
