// A stand-in for a uWS HttpResponse that records every body write (with the clock's time) and
// whether the response was ended, for unit tests of the ndjson stream.
import type { HttpResponse } from 'uWebSockets.js';

export interface RecordedResponse {
  raw: HttpResponse;
  writes: { at: number; text: string }[];
  ended(): boolean;
}

export function recordingResponse(now: () => number = () => 0): RecordedResponse {
  const writes: { at: number; text: string }[] = [];
  let ended = false;
  const raw = {
    onAborted: () => raw,
    onWritable: () => raw,
    cork: (cb: () => void) => {
      cb();
      return raw;
    },
    writeStatus: () => raw,
    writeHeader: () => raw,
    write: (text: string) => {
      writes.push({ at: now(), text });
      return true;
    },
    end: () => {
      ended = true;
      return raw;
    },
    close: () => raw,
  };
  return { raw: raw as unknown as HttpResponse, writes, ended: () => ended };
}
