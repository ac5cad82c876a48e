// Text the bridge did not write itself (names, reasons and problem details from the server, lines
// from the engine) is shown on the operator's terminal. A terminal obeys control characters: an
// escape sequence in a bot's name could clear the screen, retitle the window, fake a line of output
// or worse. Everything the bridge prints therefore goes through one of the two functions below.

// C0 (newline and tab included), DEL, C1, and the Unicode marks that reorder or break lines.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// What JSON.stringify leaves as is of the above (it escapes C0 itself).
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');

/** The text with every control character written out as `\xNN` (or `\uNNNN`): one inert line. */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
}

/** The value as JSON (one line unless `indent`), with the characters JSON leaves raw escaped as `\uNNNN` (the same value). */
export function printableJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (c) => `\\u${hex(c, 4)}`);
}
