// A route that carries a player's game command (`command` in the route catalogue) has no handler of
// its own: the edge asks the command table for the payload (fromRequest). Every such route must name
// a command the table sends from a request, and the payload must reach the game's owner.
import t from 'tap';
import { ROUTES } from '../../src/wire/routes.js';
import { commandSpec } from '../../src/game/commands.js';

t.test('every command route names a command the table makes from a request', async (t) => {
  const routes = ROUTES.filter((r) => r.command !== undefined);
  t.ok(routes.some((r) => r.operationId === 'resign'), 'resign is a command route');
  for (const r of routes) {
    t.equal(r.game, 'state', `${r.operationId} is a route of one game (the cluster's gate runs first)`);
    t.type(commandSpec(r.command!)?.fromRequest, 'function', `${r.operationId}: the table makes the payload of ${r.command}`);
  }
});

t.test('resign\'s payload is the caller\'s seat, whatever the body', async (t) => {
  const fromRequest = commandSpec('resign')!.fromRequest!;
  t.same(fromRequest('Black', { seat: 'White', extra: 1 }), { seat: 'Black' });
  t.same(fromRequest('White', undefined), { seat: 'White' });
});
