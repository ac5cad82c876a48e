// Child processes of a test that cannot outlive it. A test stops its children by PID, and the
// helpers also kill them from a process 'exit' handler; but a test process killed by a signal (tap's
// timeout sends SIGALRM, then SIGKILL) runs no 'exit' handler. So each child is started through
// util-linux `setpriv --pdeathsig KILL`, which execs the program in the same process (same PID) with
// the kernel's parent-death signal set: when the test process dies, however it dies, the kernel
// kills the child. Without setpriv the child is started directly.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';
const bound = existsSync(SETPRIV);

export function spawnBound(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return bound ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args], options) : spawn(command, [...args], options);
}
