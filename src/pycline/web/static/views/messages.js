// The transcript as a virtual list (@tanstack/virtual-core): only the rows in view, plus a
// margin, are in the page, each measured as it is drawn, so a task of 10,000 messages costs a
// few dozen elements. It keeps to the bottom while the user is there (a reply streaming in) and
// offers "Scroll to bottom" otherwise. One list per task: another task gets a fresh one.

import { html } from "../lib/html.js";
import { useLayoutEffect, useReducer, useRef, useState } from "../vendor/hooks.js";
import { Virtualizer, elementScroll, measureElement, observeElementOffset, observeElementRect } from "../vendor/virtual-core.js";
import { RowView } from "./rows.js";

/**
 * @typedef {import("../types/page").Row} Row
 * @typedef {import("./rows.js").RowContext} RowContext
 * @typedef {import("../lib/transcript.js").Transcript} Transcript
 */

const ESTIMATE = 64;
const AT_END = 40; // pixels from the bottom that still count as "at the bottom"

/** @param {{ transcript: Transcript, version: number, ctx: RowContext }} props */
export function MessageList({ transcript, ctx }) {
  const rows = transcript.rows;
  const scroller = useRef(/** @type {HTMLDivElement | null} */ (null));
  const [, redraw] = useReducer((/** @type {number} */ n) => n + 1, 0);
  const [atEnd, setAtEnd] = useState(true);
  const [list] = useState(() => new Virtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ESTIMATE,
    getItemKey: (i) => transcript.rows[i]?.id ?? i,
    overscan: 8,
    anchorTo: "end",
    followOnAppend: true,
    scrollEndThreshold: AT_END,
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    measureElement,
    onChange: () => redraw(0),
  }));
  list.setOptions({
    ...list.options,
    count: rows.length,
    getItemKey: (i) => transcript.rows[i]?.id ?? i,
    onChange: (instance) => {
      setAtEnd(instance.isAtEnd(AT_END));
      redraw(0);
    },
  });
  useLayoutEffect(() => list._didMount(), []);
  useLayoutEffect(() => {
    list._willUpdate();
  });
  // A task opens at its end (after the list has its scroll element, set just above).
  useLayoutEffect(() => list.scrollToEnd(), []);
  const items = list.getVirtualItems();
  return html`<div class="list-box">
    <div class="vlist" role="log" aria-label="Messages" tabindex="0" ref=${scroller}>
      <div class="vlist-inner" role="list" style=${{ height: `${list.getTotalSize()}px` }}>
        ${items.map((item) => {
          const row = rows[item.index];
          return html`<div key=${item.key} class="vrow" role="listitem" data-index=${item.index} data-row=${row.id}
              ref=${(/** @type {HTMLElement | null} */ el) => el && list.measureElement(el)} style=${{ transform: `translateY(${item.start}px)` }}>
            <${RowView} row=${row} version=${row.version} ctx=${ctx} />
          </div>`;
        })}
      </div>
    </div>
    ${atEnd ? null : html`<button type="button" class="to-bottom" aria-label="Scroll to bottom" onClick=${() => list.scrollToEnd()}>↓</button>`}
  </div>`;
}
