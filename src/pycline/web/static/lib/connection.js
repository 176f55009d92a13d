// One WebSocket to the server: reconnects after a drop (the server replays each task's events),
// keeps what is sent while (re)connecting until the socket is open, and matches replies to the
// requests that asked for one.

import { session } from "./session.js";

/** @typedef {import("../types/page").ServerMessage} ServerMessage */

export class Connection {
  /** @param {(message: ServerMessage) => void} receive
   * @param {(connected: boolean) => void} state */
  constructor(receive, state) {
    this.receive = receive;
    this.state = state;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retry = 250;
    /** @type {string[]} */
    this.outbox = [];
    /** @type {Map<number, { resolve: (m: any) => void, reject: (e: Error) => void }>} */
    this.pending = new Map();
    this.requestId = 0;
  }

  connect() {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`, session.protocols());
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 250;
      this.state(true);
      for (const data of this.outbox.splice(0)) ws.send(data);
    };
    ws.onmessage = (m) => this.dispatch(JSON.parse(m.data));
    ws.onclose = () => {
      this.state(false);
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 5000);
    };
  }

  /** @param {ServerMessage} msg */
  dispatch(msg) {
    const request = "request" in msg && typeof msg.request === "number" ? msg.request : null;
    const waiting = request === null ? undefined : this.pending.get(request);
    if (waiting && request !== null) {
      this.pending.delete(request);
      if ("kind" in msg && msg.kind === "rejected") waiting.reject(new Error(msg.error));
      else waiting.resolve(msg);
    }
    this.receive(msg);
  }

  /** Send without waiting for a reply.
   * @param {object} action */
  raw(action) {
    const data = JSON.stringify(action);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(data);
    else this.outbox.push(data);
  }

  /** Send, and wait for the server's "started", "accepted" or "rejected".
   * @param {object} action
   * @returns {Promise<any>} */
  send(action) {
    const request = ++this.requestId;
    this.raw({ ...action, request });
    return new Promise((resolve, reject) => this.pending.set(request, { resolve, reject }));
  }
}
