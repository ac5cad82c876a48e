import t from 'tap';
import { botSeat, guestSeat } from '../../src/services/identity.js';
import { AccountHub } from '../../src/services/account-hub.js';
import type { AccountEvent } from '../../src/domain/types.js';
import { Sink, fakeHandle } from '../helpers/services.js';

const start = (gameId: string): AccountEvent => ({
  GameStart: { gameId, color: 'White', opponent: { id: null, kind: 'Human', name: null }, timeControl: { Unlimited: {} }, rated: false },
});
const startLine = (gameId: string): string => JSON.stringify(start(gameId));

t.test('every connection of an identity receives each event, serialised once as one ndjson line', async (t) => {
  const hub = new AccountHub();
  const a1 = new Sink();
  const a2 = new Sink();
  const b = new Sink();
  hub.subscribe('bot:team:t:a', a1);
  const off2 = hub.subscribe('bot:team:t:a', a2);
  hub.subscribe('bot:team:t:b', b);
  hub.publish('bot:team:t:a', { ChallengeDeclined: { id: 'c1' } });
  t.same(a1.lines, ['{"ChallengeDeclined":{"id":"c1"}}\n']);
  t.equal(a2.lines[0], a1.lines[0]);
  t.same(b.lines, [], 'other identities get nothing');
  off2();
  off2(); // twice is harmless
  hub.publish('bot:team:t:a', start('g'));
  t.equal(a1.lines.length, 2);
  t.equal(a2.lines.length, 1, 'an unsubscribed connection gets nothing more');
});

t.test('isOnline follows connections; publishing to nobody is a no-op', async (t) => {
  const hub = new AccountHub();
  t.equal(hub.isOnline('x'), false);
  const off1 = hub.subscribe('x', new Sink());
  const off2 = hub.subscribe('x', new Sink());
  t.equal(hub.isOnline('x'), true);
  t.equal(hub.connections(), 2);
  off1();
  t.equal(hub.isOnline('x'), true);
  off2();
  t.equal(hub.isOnline('x'), false);
  t.equal(hub.connections(), 0);
  hub.publish('x', start('g'));
});

t.test('a throwing sink is dropped and does not starve the others', async (t) => {
  const hub = new AccountHub();
  const good = new Sink();
  hub.subscribe('x', { send: () => { throw new Error('broken'); } });
  hub.subscribe('x', good);
  hub.publish('x', start('g1'));
  hub.publish('x', start('g2'));
  t.equal(good.lines.length, 2);
  t.equal(hub.connections(), 1);
});

t.test('gameStarted sends GameStart to both seated players', async (t) => {
  const hub = new AccountHub();
  const w = new Sink();
  const b = new Sink();
  const other = new Sink();
  const white = botSeat('t', 'w');
  const black = guestSeat('G');
  hub.subscribe(white.id, w);
  hub.subscribe(black.id, b);
  hub.subscribe('bot:team:t:other', other);
  hub.gameStarted(fakeHandle('game9', white, black));
  const face = (p: typeof white) => ({ kind: p.face.kind, name: p.face.name });
  t.same(w.events(), [{ GameStart: { gameId: 'game9', color: 'White', opponent: { id: null, ...face(black) }, timeControl: { Unlimited: {} }, rated: false } }], 'a guest opponent by its face only');
  t.same(b.events(), [{ GameStart: { gameId: 'game9', color: 'Black', opponent: { id: white.id, ...face(white) }, timeControl: { Unlimited: {} }, rated: false } }], 'a bot opponent with its id');
  t.same(other.lines, []);
});

t.test('closeAll ends every connection once and forgets it', async (t) => {
  const hub = new AccountHub();
  const closed: string[] = [];
  const got: string[] = [];
  hub.subscribe('bot:team:a:x', { send: (l) => got.push(l), close: () => closed.push('x1') });
  hub.subscribe('bot:team:a:x', { send: (l) => got.push(l), close: () => closed.push('x2') });
  hub.subscribe('bot:team:a:y', { send: (l) => got.push(l) });
  hub.closeAll();
  t.same(closed.sort(), ['x1', 'x2'], 'each closable connection was ended');
  t.equal(hub.connections(), 0, 'nothing stays attached');
  hub.publish('bot:team:a:x', start('g'));
  t.same(got, [], 'no event reaches a closed connection');
});

t.test('with a remote: events go out too, streams are announced once per identity, presence counts the other nodes', async (t) => {
  const calls: string[] = [];
  const elsewhere = new Set<string>();
  const hub = new AccountHub({
    publish: (id, line) => calls.push(`publish ${id} ${line.trim()}`),
    attached: (id) => calls.push(`attached ${id}`),
    detached: (id) => calls.push(`detached ${id}`),
    isOnline: (id) => elsewhere.has(id),
  });
  // Nobody connected here: the event still goes to the other nodes.
  hub.publish('far', { ChallengeDeclined: { id: 'c0' } });
  t.same(calls, ['publish far {"ChallengeDeclined":{"id":"c0"}}']);
  calls.length = 0;
  const here = new Sink();
  const off1 = hub.subscribe('x', here);
  const off2 = hub.subscribe('x', new Sink());
  t.same(calls, ['attached x'], 'announced on the first connection only');
  hub.publish('x', start('g'));
  t.same(here.lines, [`${startLine('g')}\n`], 'delivered here');
  t.equal(calls[1], `publish x ${startLine('g')}`, 'and sent to the others');
  // An event from another node reaches this node's connections only.
  hub.deliver('x', '{"ChallengeDeclined":{"id":"c1"}}\n');
  t.equal(here.lines.length, 2);
  t.equal(calls.length, 2, 'delivering does not send it back out');
  off1();
  t.equal(calls.length, 2, 'still one connection here');
  off2();
  t.same(calls.slice(2), ['detached x'], 'withdrawn with the last connection');
  t.equal(hub.isOnline('y'), false);
  elsewhere.add('y');
  t.equal(hub.isOnline('y'), true, 'a stream on another node counts');
  hub.subscribe('z', new Sink());
  hub.closeAll();
  t.equal(calls.at(-1), 'detached z', 'shutdown withdraws what was here');
});
