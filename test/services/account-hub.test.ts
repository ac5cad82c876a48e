import t from 'tap';
import { botSeat, guestSeat } from '../../src/services/identity.js';
import { AccountHub } from '../../src/services/account-hub.js';
import { Sink, fakeHandle } from './helpers.js';

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
  hub.publish('bot:team:t:a', { GameStart: { gameId: 'g' } });
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
  hub.publish('x', { GameStart: { gameId: 'g' } });
});

t.test('a throwing sink is dropped and does not starve the others', async (t) => {
  const hub = new AccountHub();
  const good = new Sink();
  hub.subscribe('x', { send: () => { throw new Error('broken'); } });
  hub.subscribe('x', good);
  hub.publish('x', { GameStart: { gameId: 'g1' } });
  hub.publish('x', { GameStart: { gameId: 'g2' } });
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
  t.same(w.events(), [{ GameStart: { gameId: 'game9' } }]);
  t.same(b.events(), [{ GameStart: { gameId: 'game9' } }]);
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
  hub.publish('bot:team:a:x', { GameStart: { gameId: 'g' } });
  t.same(got, [], 'no event reaches a closed connection');
});
