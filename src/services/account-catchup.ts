// What an account stream sends first on connect: the challenges still waiting for the bot, its live
// games and its unanswered event invitations, then the live lines. The stream subscribes to the hub
// before it reads any of that, and holds the live lines meanwhile: an item published while the
// catch-up is read is then either in the catch-up (and its held copy is dropped) or only held (and
// sent after), never lost between the two and never sent twice.
import type { AccountEvent } from '../domain/types.js';
import { eventLine } from '../wire/encode.js';
import type { AccountSink } from './account-hub.js';

/** Live lines held while the catch-up is read; past it the stream is ended (the bot reconnects). */
export const MAX_HELD_LINES = 1024;

/** Challenges replayed at most: a target has no cap of its own on challenges to it, so this is it. */
export const MAX_CATCH_UP_CHALLENGES = 100;

/** What makes two lines "the same item": the kind of line and the id it is about (null: never the same). */
export function itemKey(event: AccountEvent): string | null {
  if ('ChallengeReceived' in event) return `c:${event.ChallengeReceived.id}`;
  if ('GameStart' in event) return `g:${event.GameStart.gameId}`;
  if ('EventInvitation' in event) return `e:${event.EventInvitation.eventId}`;
  return null;
}

function keyOfLine(line: string): string | null {
  try {
    return itemKey(JSON.parse(line) as AccountEvent);
  } catch {
    return null;
  }
}

/** A hub sink that holds live lines until the catch-up is sent, then passes them through. */
export class CatchUpSink implements AccountSink {
  private held: string[] | null = [];
  private overflowed = false;

  constructor(private readonly out: AccountSink, private readonly maxHeld = MAX_HELD_LINES) {}

  send(line: string): void {
    if (this.held === null) return this.out.send(line);
    if (this.overflowed) return;
    if (this.held.length >= this.maxHeld) {
      // Holding more would let a flood of events grow this stream's memory without end.
      this.overflowed = true;
      this.held = [];
      this.out.close?.();
      return;
    }
    this.held.push(line);
  }

  close(): void {
    this.out.close?.();
  }

  /** Sends the catch-up, then every held line whose item it did not already name; live from then on. */
  release(catchUp: readonly AccountEvent[]): void {
    if (this.held === null || this.overflowed) return;
    const sent = new Set<string>();
    for (const event of catchUp) {
      const key = itemKey(event);
      if (key !== null) {
        if (sent.has(key)) continue;
        sent.add(key);
      }
      this.out.send(eventLine(event));
    }
    const held = this.held;
    this.held = null;
    for (const line of held) {
      const key = keyOfLine(line);
      if (key !== null && sent.has(key)) continue;
      this.out.send(line);
    }
  }
}
