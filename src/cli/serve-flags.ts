// `dicechess serve` flags, and how they layer over the file and the environment. Only the flags a
// user actually typed become overrides: `make run` passes none unless told, so DICECHESS_* works.
import { loadConfig, type Config } from '../server-config.js';
import type { Result } from '../domain/result.js';

export const SERVE_USAGE = `usage: dicechess serve [--host H] [--port P] [--data DIR] [--memory] [--config FILE]
                      [--cluster nats://HOST:PORT[,nats://…] --node NAME]

Starts the bot service. Each setting is read from config/default.json, then the --config FILE
(JSON merged over it), then DICECHESS_* environment variables, then these flags; later wins.

  --host H         address to listen on (DICECHESS_HOST; default 127.0.0.1)
  --port P         port to listen on, 0 for any free one (DICECHESS_PORT; default 8080)
  --data DIR       LMDB data directory (DICECHESS_DATA; default ./data)
  --memory         keep nothing on disk (DICECHESS_MEMORY=true)
  --config FILE    a JSON file of settings merged over config/default.json
  --cluster URLS   run as one node of a cluster on these NATS servers, comma-separated
                   (DICECHESS_CLUSTER_SERVERS; docs/CLUSTER.md); the store is then the cluster's
  --node NAME      this node's name in the cluster, unique (DICECHESS_NODE)
  -h, --help       print this and exit`;

export interface ServeFlags {
  help: boolean;
  file?: string;
  overrides: Record<string, unknown>;
}

/** The flags, or a message saying what is wrong with them. */
export function parseServeFlags(args: string[]): ServeFlags | string {
  const overrides: Record<string, unknown> = {};
  let file: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const val = (): string | undefined => args[++i];
    switch (a) {
      case '-h':
      case '--help': return { help: true, overrides: {} };
      case '--host': overrides.host = val(); break;
      case '--port': {
        const v = Number(val());
        if (!Number.isInteger(v)) return '--port needs an integer';
        overrides.port = v;
        break;
      }
      case '--data': overrides.dataDir = val(); overrides.memory = false; break;
      case '--memory': overrides.memory = true; break;
      case '--cluster': {
        const v = val();
        if (v === undefined) return '--cluster needs a value';
        overrides['cluster.servers'] = v.split(',').map((u) => u.trim()).filter(Boolean);
        break;
      }
      case '--node': overrides['cluster.node'] = val(); break;
      case '--config': file = val(); if (file === undefined) return '--config needs a value'; break;
      default: return `unknown flag ${a}`;
    }
    if (Object.values(overrides).includes(undefined)) return `${a} needs a value`;
  }
  return { help: false, file, overrides };
}

/** The configuration `dicechess serve <args>` runs with in this environment. */
export function serveConfig(flags: ServeFlags, env: Record<string, string | undefined>): Result<Config, string> {
  return loadConfig({ file: flags.file, env, overrides: flags.overrides });
}
