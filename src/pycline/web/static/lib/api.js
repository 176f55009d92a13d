// The JSON API beside the WebSocket. Errors carry the server's one-line reason.

/** @param {Response} r */
async function reason(r) {
  const data = await r.json().catch(() => ({}));
  return new Error(data.error || r.statusText);
}

export const api = {
  /** @param {string} path
   * @returns {Promise<any>} */
  async get(path) {
    const r = await fetch(path, { credentials: "same-origin" });
    if (!r.ok) throw await reason(r);
    return r.json();
  },
  /** @param {string} path
   * @param {object} [body]
   * @returns {Promise<any>} */
  async post(path, body = {}) {
    const r = await fetch(path, { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (!r.ok) throw await reason(r);
    return r.json().catch(() => ({}));
  },
};

/** @param {string} id */
export const enc = (id) => encodeURIComponent(id);
