// The session credential (from POST /api/login). It lives in this origin's storage and travels as
// a header, or as a WebSocket subprotocol: never a cookie, which the browser would also send to
// every other port of this host (a dev server).

const KEY = "pycline-session";

export const session = {
  /** @returns {string | null} */
  get: () => localStorage.getItem(KEY),
  /** @param {string} value */
  set: (value) => localStorage.setItem(KEY, value),
  /** @returns {Record<string, string>} */
  headers() {
    const value = localStorage.getItem(KEY);
    return value ? { Authorization: `Bearer ${value}` } : {};
  },
  /** Browsers cannot put headers on a WebSocket: the credential goes as a subprotocol.
   * @returns {string[]} */
  protocols: () => ["pycline", `pycline-session.${localStorage.getItem(KEY) || ""}`],
};
