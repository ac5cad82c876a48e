// `dicechess reissue-token TEAM/NAME [--data DIR]`: gives a registered bot a new token straight in
// the data directory, for an operator whose bot lost its token (a registered bot's rating history is
// only reachable through its token, and rotation needs the old one). The old token stops working; the
// bot's record is otherwise left exactly as it was (rating, ladder, webhook, results).
//
// It works on the LMDB directory itself, so the server must be stopped: the store's lock on the
// directory (store/dir-lock.ts) refuses it while a server holds it. There is no route for it because
// the server has no operator authentication to guard one with: every token is a bot's.
import { err, ok, type Result } from '../domain/result.js';
import { botExternalId } from '../domain/types.js';
import { hashToken, newToken } from '../services/tokens.js';
import { LmdbStore } from '../store/index.js';

export const REISSUE_USAGE = `usage: dicechess reissue-token TEAM/NAME [--data DIR]
  Prints a new token for the registered bot TEAM/NAME and invalidates its old one. Run it on the
  server's data directory (default ./data) while the server is stopped.`;

/** Replaces the bot's token hash in the store at `dataDir`; the new token, shown only here. */
export async function reissueToken(dataDir: string, team: string, name: string): Promise<Result<{ token: string; id: string }, string>> {
  if (team === 'anon' || team === 'house') return err(`${team}/${name} is not a registered bot (team ${team} is reserved)`);
  const opened = await LmdbStore.open(dataDir);
  if (!opened.ok) return err(`${opened.error} (reissue-token needs the server stopped)`);
  const store = opened.value;
  try {
    const id = botExternalId(team, name);
    const token = newToken();
    const after = await store.modifyBot(id, (bot) => ({ ...bot, tokenHash: hashToken(token) }));
    if (!after) return err(`no registered bot ${team}/${name} in ${dataDir}`);
    return ok({ token, id });
  } finally {
    await store.close();
  }
}

/** The command: parses its arguments, prints the token on stdout (alone, for scripts) and a note on stderr. */
export async function reissueTokenCommand(argv: string[], io: { log(s: string): void; error(s: string): void }): Promise<number> {
  let dataDir = './data';
  let who: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') {
      io.log(REISSUE_USAGE);
      return 0;
    }
    if (a === '--data') {
      const v = argv[++i];
      if (v === undefined) return usage(io, '--data needs a directory');
      dataDir = v;
    } else if (who === undefined && !a.startsWith('-')) who = a;
    else return usage(io, `unexpected argument ${a}`);
  }
  const m = who === undefined ? null : /^([a-z0-9][a-z0-9-]*)\/([a-z0-9][a-z0-9-]*)$/.exec(who);
  if (!m) return usage(io, who === undefined ? 'which bot? give TEAM/NAME' : `${who} is not TEAM/NAME`);
  const r = await reissueToken(dataDir, m[1]!, m[2]!);
  if (!r.ok) {
    io.error(`reissue-token: ${r.error}`);
    return 1;
  }
  io.log(r.value.token);
  io.error(`${who}: new token above; the old one no longer works. Give it to the bot (e.g. dicechess bridge --token …, once).`);
  return 0;
}

function usage(io: { error(s: string): void }, why: string): number {
  io.error(`${why}\n${REISSUE_USAGE}`);
  return 2;
}
