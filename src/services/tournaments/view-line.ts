// One ndjson line holding an event's view (`{"Event": …}` opening the export, `{"EventState": …}`
// opening the event stream), made in pieces: a 20,000-pair event's view is megabytes of JSON, mostly
// its pairs and its LLR history, and the edge sends such lines as they are made (ndjson-pump.ts). The
// pieces joined are exactly JSON.stringify({[key]: view}) + '\n', the line the event always had.

/** Pairs (or LLR values) per piece. */
const PER_PIECE = 64;

export interface ViewWithLists {
  llrHistory: readonly number[];
  pairs: readonly unknown[];
}

export function* viewLine(key: 'Event' | 'EventState', view: ViewWithLists): Generator<string> {
  // Both lists emptied, the rest made whole (its size depends on the players, not on the pairs). The
  // two keys are adjacent in the view; their text cannot occur inside a string value, where every
  // quote is escaped, nor elsewhere in the view, so it marks where the lists go.
  const marker = '"llrHistory":[],"pairs":[]';
  const rest = JSON.stringify({ [key]: { ...view, llrHistory: [], pairs: [] } });
  const at = rest.lastIndexOf(marker);
  if (at < 0) throw new Error('an event view without its llrHistory and pairs side by side');
  yield `${rest.slice(0, at)}"llrHistory":[`;
  yield* runs(view.llrHistory);
  yield '],"pairs":[';
  yield* runs(view.pairs);
  yield `]${rest.slice(at + marker.length)}\n`;
}

/** The items as JSON, comma-separated, PER_PIECE to a piece (as JSON.stringify writes an array's items). */
function* runs(items: readonly unknown[]): Generator<string> {
  for (let i = 0; i < items.length; i += PER_PIECE) {
    const text = items.slice(i, i + PER_PIECE).map((x) => JSON.stringify(x) ?? 'null').join(',');
    yield i === 0 ? text : `,${text}`;
  }
}
