// A virtualised list of rows with different heights: only the rows in view (plus a margin) are in
// the DOM. Heights are measured once per row version and cached; offsets come from a running sum,
// so 10,000 rows cost one array walk per scroll, not 10,000 DOM nodes. It sticks to the bottom
// while the user is there (streaming) and offers a "Scroll to bottom" button otherwise.

const ESTIMATE = 64;
const OVERSCAN = 600; // pixels rendered above and below the viewport

export class VirtualList {
  constructor(container, { render, label }) {
    this.render = render;
    this.rows = [];
    this.heights = new Map(); // row id -> [version, height]
    this.nodes = new Map(); // row id -> {version, node}
    this.scroller = document.createElement("div");
    this.scroller.className = "vlist";
    this.scroller.setAttribute("role", "log");
    this.scroller.setAttribute("aria-label", label);
    this.scroller.tabIndex = 0;
    this.inner = document.createElement("div");
    this.inner.className = "vlist-inner";
    this.inner.setAttribute("role", "list");
    this.scroller.append(this.inner);
    this.bottomButton = document.createElement("button");
    this.bottomButton.type = "button";
    this.bottomButton.className = "to-bottom";
    this.bottomButton.textContent = "↓";
    this.bottomButton.setAttribute("aria-label", "Scroll to bottom");
    this.bottomButton.hidden = true;
    this.bottomButton.addEventListener("click", () => this.scrollToBottom());
    container.append(this.scroller, this.bottomButton);
    this.stick = true;
    this.frame = 0;
    this.scroller.addEventListener("scroll", () => {
      const s = this.scroller;
      this.stick = s.scrollHeight - s.scrollTop - s.clientHeight < 40;
      this.bottomButton.hidden = this.stick;
      this.schedule();
    });
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
    // An image (a screenshot) decoded after its row was measured changes the row's height.
    this.scroller.addEventListener("load", () => this.schedule(), true);
  }

  setRows(rows) {
    this.rows = rows;
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.layout());
  }

  scrollToBottom() {
    this.stick = true;
    this.layout();
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  height(row) {
    const h = this.heights.get(row.id);
    return h ? h[1] : ESTIMATE;
  }

  layout() {
    this.frame = 0;
    const rows = this.rows;
    const view = this.scroller.clientHeight || 600;
    const stickBottom = this.stick;
    let total = 0;
    for (const r of rows) total += this.height(r);
    const top = stickBottom ? Math.max(0, total - view) : this.scroller.scrollTop;
    let y = 0;
    let first = -1;
    let firstY = 0;
    let last = rows.length - 1;
    for (let i = 0; i < rows.length; i++) {
      const h = this.height(rows[i]);
      if (first < 0 && y + h >= top - OVERSCAN) {
        first = i;
        firstY = y;
      }
      y += h;
      if (y > top + view + OVERSCAN) {
        last = i;
        break;
      }
    }
    if (first < 0) {
      first = rows.length;
      firstY = y;
    }
    const visible = rows.slice(first, last + 1);
    const keep = new Set(visible.map((r) => r.id));
    for (const [id, entry] of this.nodes) {
      if (!keep.has(id)) {
        entry.node.remove();
        this.nodes.delete(id);
      }
    }
    let prev = null;
    for (const row of visible) {
      let entry = this.nodes.get(row.id);
      if (!entry || entry.version !== row.version) {
        const node = this.render(row);
        node.setAttribute("role", "listitem");
        node.dataset.row = String(row.id);
        if (entry && entry.node !== node) entry.node.replaceWith(node);
        entry = { version: row.version, node };
        this.nodes.set(row.id, entry);
      }
      const want = prev ? prev.nextSibling : this.inner.firstChild;
      if (want !== entry.node) this.inner.insertBefore(entry.node, want);
      prev = entry.node;
    }
    // Measure what is shown; correct the estimates once per row version.
    let measuredChange = false;
    for (const row of visible) {
      const entry = this.nodes.get(row.id);
      const h = entry.node.offsetHeight;
      const old = this.heights.get(row.id);
      if (!old || old[1] !== h) measuredChange = true;
      this.heights.set(row.id, [row.version, h]);
    }
    let after = 0;
    for (let i = last + 1; i < rows.length; i++) after += this.height(rows[i]);
    this.inner.style.paddingTop = `${firstY}px`;
    this.inner.style.paddingBottom = `${after}px`;
    if (stickBottom) {
      this.scroller.scrollTop = this.scroller.scrollHeight;
      if (measuredChange) this.schedule();
    }
  }
}
