// Loss and delay on a test host's links (test/helpers/netns.ts), both ways. With sch_netem in the
// kernel: `tc qdisc add dev <link> root netem loss P% delay Dms` on both ends of each of the host's
// links. Without it (this project's CI kernel has none, and no module to load), the link is led
// through netns-relay.pl instead: the host's bridge port leaves the test bridge for a small bridge of
// its own, whose other port is a tap of the relay, and the relay's second tap joins the test bridge in
// its place; the relay drops and delays frames as netem would. Removing the impairment puts the port
// back and stops the relay by its PID.
import type { ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnBound } from './spawn-bound.js';
import { IP, TC, sh, type NetCluster } from './netns.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const RELAY = join(ROOT, 'test', 'helpers', 'netns-relay.pl');
const quiet = (p: Promise<unknown>) => p.then(() => undefined, () => undefined);

export interface Impairment {
  /** 'netem' or 'relay': how the loss and delay are made. */
  readonly how: 'netem' | 'relay';
  /** Takes the loss and delay off again (idempotent). */
  clear(): Promise<void>;
}

/** Whether this kernel has sch_netem (a netem qdisc is added to the link and removed). */
async function hasNetem(link: string): Promise<boolean> {
  try {
    await sh(TC, ['qdisc', 'add', 'dev', link, 'root', 'netem', 'delay', '1ms']);
  } catch {
    return false;
  }
  await quiet(sh(TC, ['qdisc', 'del', 'dev', link, 'root']));
  return true;
}

/** Why neither way can be used here, or undefined. */
export async function impairUnavailable(c: NetCluster): Promise<string | undefined> {
  if (await hasNetem(c.hosts[0].clientLink)) return undefined;
  try {
    await sh('perl', ['-MTime::HiRes', '-e', '1']);
  } catch {
    return 'the kernel has no sch_netem and perl (with Time::HiRes) for the user-space relay is missing';
  }
  return undefined;
}

/** Puts `lossPct` % loss and `delayMs` ms delay on both of host i's links, each way. */
export async function impair(c: NetCluster, i: number, lossPct: number, delayMs: number, t: { teardown(fn: () => Promise<void>): void }): Promise<Impairment> {
  const h = c.hosts[i];
  const links = [
    { outer: h.clientLink, inner: 'eth0' },
    { outer: h.routeLink, inner: 'eth1' },
  ];
  if (await hasNetem(h.clientLink)) {
    const spec = ['netem', 'loss', `${lossPct}%`, 'delay', `${delayMs}ms`];
    let on = true;
    const clear = async () => {
      if (!on) return;
      on = false;
      for (const l of links) {
        await quiet(sh(TC, ['qdisc', 'del', 'dev', l.outer, 'root']));
        await quiet(sh(IP, ['netns', 'exec', h.ns, TC, 'qdisc', 'del', 'dev', l.inner, 'root']));
      }
    };
    t.teardown(clear);
    for (const l of links) {
      await sh(TC, ['qdisc', 'add', 'dev', l.outer, 'root', ...spec]);
      await sh(IP, ['netns', 'exec', h.ns, TC, 'qdisc', 'add', 'dev', l.inner, 'root', ...spec]);
    }
    return { how: 'netem', clear };
  }

  const relays: { link: string; side: string; child: ChildProcess }[] = [];
  let on = true;
  const clear = async () => {
    if (!on) return;
    on = false;
    for (const r of relays) {
      await quiet(sh(IP, ['link', 'set', r.link, 'nomaster']));
      await quiet(sh(IP, ['link', 'set', r.link, 'master', c.bridge]));
      if (r.child.pid !== undefined && r.child.exitCode === null && r.child.signalCode === null) {
        const gone = new Promise((res) => r.child.once('exit', res));
        process.kill(r.child.pid, 'SIGKILL');
        await gone;
      }
      await quiet(sh(IP, ['link', 'del', r.side]));
    }
  };
  t.teardown(clear);
  for (const { outer } of links) {
    // Names within the run's prefix, so that a crashed run's are removed with the rest.
    const toHost = `${outer}t`;
    const toBridge = `${outer}u`;
    const side = `${outer}s`;
    const child = spawnBound('perl', [RELAY, toHost, toBridge, String(lossPct / 100), String(delayMs / 1000)], { stdio: ['ignore', 'pipe', 'pipe'] });
    relays.push({ link: outer, side, child });
    await new Promise<void>((res, rej) => {
      let err = '';
      child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout?.once('data', () => res());
      child.once('exit', (code) => rej(new Error(`netns-relay.pl exited (${code}): ${err}`)));
    });
    await sh(IP, ['link', 'add', side, 'type', 'bridge']);
    for (const dev of [side, toHost, toBridge]) await sh(IP, ['link', 'set', dev, 'up']);
    await sh(IP, ['link', 'set', toHost, 'master', side]);
    await sh(IP, ['link', 'set', outer, 'nomaster']);
    await sh(IP, ['link', 'set', outer, 'master', side]);
    await sh(IP, ['link', 'set', toBridge, 'master', c.bridge]);
  }
  return { how: 'relay', clear };
}
