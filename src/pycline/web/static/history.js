// History: search, sort (Newest, Oldest, Most Expensive, Most Tokens), Workspace Only and
// Favorites Only filters; each item resumes on click and can be starred, exported or deleted.

import { h, button } from "./render.js";
import { api } from "./app.js";

export class HistoryView {
  constructor(app) {
    this.app = app;
    this.search = h("input", { type: "search", "aria-label": "Search history", placeholder: "Fuzzy search history…" });
    this.sort = h("select", { "aria-label": "Sort" },
      h("option", { value: "newest", text: "Newest" }), h("option", { value: "oldest", text: "Oldest" }),
      h("option", { value: "cost", text: "Most Expensive" }), h("option", { value: "tokens", text: "Most Tokens" }));
    this.workspace = h("input", { type: "checkbox", id: "hist-ws" });
    this.favorites = h("input", { type: "checkbox", id: "hist-fav" });
    this.list = h("ul", { class: "history-list", "aria-label": "Tasks" });
    this.el = h("section", { class: "history", "aria-label": "History" },
      h("div", { class: "view-head" }, h("h1", { text: "History" }), button("Done", () => app.show("chat"))),
      h("div", { class: "filters" }, this.search, this.sort,
        h("label", { for: "hist-ws" }, this.workspace, " Workspace Only"),
        h("label", { for: "hist-fav" }, this.favorites, " Favorites Only")),
      this.list);
    for (const c of [this.sort, this.workspace, this.favorites]) c.addEventListener("change", () => this.load());
    this.search.addEventListener("input", () => { clearTimeout(this.timer); this.timer = setTimeout(() => this.load(), 150); });
  }

  opened() {
    this.load();
  }

  async load() {
    const q = new URLSearchParams({ search: this.search.value, sort: this.sort.value, workspace: this.workspace.checked ? "1" : "0", favorites: this.favorites.checked ? "1" : "0" });
    let rows;
    try {
      rows = await api.get(`/api/history?${q}`);
    } catch (e) {
      return this.app.notify(e.message, true);
    }
    this.list.replaceChildren(...(rows.length ? rows.map((r) => this.item(r)) : [h("li", { class: "muted", text: "No tasks." })]));
  }

  item(r) {
    const when = new Date(r.ts * 1000).toLocaleString();
    const star = button(r.favorite ? "★" : "☆", async () => {
      await api.post(`/api/history/${r.id}/favorite`, { favorite: !r.favorite });
      this.load();
    }, { "aria-label": r.favorite ? "Unfavorite" : "Favorite", "aria-pressed": String(!!r.favorite), class: "icon star" });
    const exp = button("Export", () => api.download(`/api/history/${r.id}/export`, `task-${r.id}.md`).catch((e) => this.app.notify(e.message, true)), { class: "button-like" });
    const del = button("Delete", async () => {
      if (!confirm("Delete this task and its checkpoints?")) return;
      try {
        await api.post(`/api/history/${r.id}/delete`, {});
      } catch (e) {
        return this.app.notify(e.message, true);
      }
      this.load();
    }, { class: "secondary" });
    const open = button(r.task.slice(0, 200), () => this.app.openSaved(r.id), { class: "history-open", "aria-label": `Open task: ${r.task.slice(0, 80)}` });
    return h("li", { class: "history-item" },
      h("div", { class: "history-top" }, h("span", { class: "muted", text: when }), h("span", { class: `status ${r.status}`, text: r.status })),
      open,
      h("div", { class: "history-meta" },
        h("span", { text: `Tokens ↑${r.tokens_in} ↓${r.tokens_out}` }),
        r.cache_reads || r.cache_writes ? h("span", { text: `Cache ${r.cache_reads} read, ${r.cache_writes} written` }) : null,
        h("span", { text: `$${r.total_cost.toFixed(4)}` }),
        h("span", { text: r.model || "" }),
        h("span", { class: "spacer" }), star, exp, del));
  }
}
