import { useEffect, useReducer } from "../vendor/hooks.js";

/** Redraw the calling component whenever the store says it changed.
 * @param {import("../lib/store.js").Store} store */
export function useStore(store) {
  const [, redraw] = useReducer((/** @type {number} */ n) => n + 1, 0);
  useEffect(() => store.subscribe(() => redraw(0)), [store]);
}
