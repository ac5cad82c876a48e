// The seek session a bot author types with curl, byte for byte as curl sends it (raw socket: curl's
// request line and headers, no Content-Type on body-less POSTs), and the answers it must see:
//
//   curl -s -X POST "$BASE/bot/anon?name=alice"                                   # → {"token":…}
//   curl -s -X POST "$BASE/bot/anon?name=bob"
//   curl -s -X POST -H "Authorization: Bearer $ALICE" $BASE/bot/seeks            # → {"seekId":…,"secret":…}
//   curl -s $BASE/lobby/seeks                                                     # → {"seeks":[…]}
//   curl -s "$BASE/lobby/seeks/$SEEK?secret=$SECRET"                              # → {"matched":false,…}
//   curl -s -X POST -H "Authorization: Bearer $BOB" $BASE/bot/seeks/$SEEK/accept  # → {"gameId":…}
//   curl -s "$BASE/lobby/seeks/$SEEK?secret=$SECRET"                              # → {"matched":true,…}
//   curl -s -X POST -H "Authorization: Bearer $ALICE" -H "Content-Type: application/json" \
//        -d '{"timeControl":{"Fischer":{"initialSeconds":300,"incrementSeconds":3}}}' $BASE/bot/seeks
//   curl -s -X DELETE "$BASE/lobby/seeks/$SEEK2?secret=$SECRET2"                  # → 204
//
// docs/BOTS.md ("The lobby with curl") shows the same session.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { rawConnect } from '../../helpers/http.js';

interface CurlResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: any;
}

/** One request exactly as curl 8 sends it, on its own connection; parses the answer. */
async function curl(port: number, method: string, path: string, opts: { headers?: string[]; data?: string } = {}): Promise<CurlResult> {
  const c = await rawConnect(port);
  try {
    const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'User-Agent: curl/8.5.0', 'Accept: */*', ...(opts.headers ?? [])];
    if (opts.data !== undefined) {
      // curl -d adds a form content type unless one is given, and always a length.
      if (!(opts.headers ?? []).some((h) => /^content-type:/i.test(h))) lines.push('Content-Type: application/x-www-form-urlencoded');
      lines.push(`Content-Length: ${Buffer.byteLength(opts.data)}`);
    }
    c.write(`${lines.join('\r\n')}\r\n\r\n${opts.data ?? ''}`);
    const complete = (text: string): boolean => {
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const head = text.slice(0, end);
      if (/^HTTP\/1\.1 (204|304)/.test(head)) return true;
      const len = /\r\ncontent-length: *(\d+)/i.exec(head);
      return len !== null && Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(len[1]);
    };
    const text = await c.until(complete);
    const end = text.indexOf('\r\n\r\n');
    const [statusLine, ...headerLines] = text.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const h of headerLines) {
      const i = h.indexOf(':');
      headers[h.slice(0, i).toLowerCase()] = h.slice(i + 1).trim();
    }
    const body = Buffer.from(text.slice(end + 4), 'latin1').toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    return { status: Number(statusLine.split(' ')[1]), headers, body, json };
  } finally {
    c.destroy();
  }
}

t.test('the curl session for seeks: create, list, poll, accept, poll shows the match', async (t) => {
  const app = await bootApp(t);
  const port = app.port;
  const alice = await curl(port, 'POST', '/bot/anon?name=alice');
  t.equal(alice.status, 201);
  t.match(alice.json, { team: 'anon', name: /^alice-[0-9a-f]{8}$/ });
  const bob = await curl(port, 'POST', '/bot/anon?name=bob');
  const ALICE = alice.json.token as string;
  const BOB = bob.json.token as string;

  const seek = await curl(port, 'POST', '/bot/seeks', { headers: [`Authorization: Bearer ${ALICE}`] });
  t.equal(seek.status, 201, 'a body-less POST with no content type is fine');
  t.equal(seek.headers['content-type'], 'application/json');
  const SEEK = seek.json.seekId as string;
  const SECRET = seek.json.secret as string;

  const list = await curl(port, 'GET', '/lobby/seeks');
  t.same(list.json, {
    seeks: [{ id: SEEK, timeControl: { Fischer: { initialSeconds: 600, incrementSeconds: 10 } }, kind: 'Bot', name: `anon ${alice.json.name}` }],
  });

  const open = await curl(port, 'GET', `/lobby/seeks/${SEEK}?secret=${SECRET}`);
  t.equal(open.status, 200);
  t.equal(open.body, '{"matched":false,"gameId":null,"seat":null}', 'exactly the documented answer');

  const acc = await curl(port, 'POST', `/bot/seeks/${SEEK}/accept`, { headers: [`Authorization: Bearer ${BOB}`] });
  t.equal(acc.status, 201);
  t.match(acc.json, { gameId: /^[A-Za-z0-9]{16}$/ });
  const GAME = acc.json.gameId as string;

  const matched = await curl(port, 'GET', `/lobby/seeks/${SEEK}?secret=${SECRET}`);
  t.equal(matched.status, 200);
  t.same(Object.keys(matched.json), ['matched', 'gameId', 'seat']);
  t.equal(matched.json.matched, true);
  t.equal(matched.json.gameId, GAME);
  t.match(matched.json.seat, /^(White|Black)$/);

  const games = await curl(port, 'GET', '/bot/games', { headers: [`Authorization: Bearer ${ALICE}`] });
  t.equal(games.json.games[0]?.gameId, GAME, 'alice finds the game in GET /bot/games');
  t.equal(games.json.games[0]?.seat, matched.json.seat, 'in the seat the poll named');

  // With a time control. curl -d labels the body as a form unless told otherwise; the JSON is read anyway.
  const data = '{"timeControl":{"Fischer":{"initialSeconds":300,"incrementSeconds":3}}}';
  const form = await curl(port, 'POST', '/bot/seeks', { headers: [`Authorization: Bearer ${ALICE}`], data });
  t.equal(form.status, 201, 'forgetting -H "Content-Type: application/json" does not matter');
  const listed = await curl(port, 'GET', '/lobby/seeks');
  const mine = (listed.json.seeks as { id: string; timeControl: unknown }[]).find((x) => x.id === form.json.seekId);
  t.same(mine?.timeControl, { Fischer: { initialSeconds: 300, incrementSeconds: 3 } }, 'and its time control was read');
  t.equal((await curl(port, 'DELETE', `/lobby/seeks/${form.json.seekId}?secret=${form.json.secret}`)).status, 204);
  const timed = await curl(port, 'POST', '/bot/seeks', {
    headers: [`Authorization: Bearer ${ALICE}`, 'Content-Type: application/json'],
    data,
  });
  t.equal(timed.status, 201);
  const del = await curl(port, 'DELETE', `/lobby/seeks/${timed.json.seekId}?secret=${timed.json.secret}`);
  t.equal(del.status, 204, 'cancelled');
  t.equal(del.body, '');
});
