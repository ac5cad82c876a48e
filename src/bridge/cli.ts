// `dicechess bridge`: parses the flags and the config file, runs a Bridge until it stops (after
// --games N, or on SIGINT/SIGTERM: the first lets the running games finish, the second ends now).
import { Bridge } from './bridge.js';
import { BRIDGE_USAGE, parseBridgeArgs, printableConfig } from './config.js';
import { printable } from './text.js';

export { BRIDGE_USAGE } from './config.js';

export async function bridgeCommand(argv: string[]): Promise<number> {
  const args = parseBridgeArgs(argv);
  if (typeof args === 'string') {
    console.error(`${printable(args)}\n${BRIDGE_USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(BRIDGE_USAGE);
    return 0;
  }
  if (args.printConfig) {
    console.log(printableConfig(args.config));
    return 0;
  }
  if (!args.config.engine.command.length) {
    console.error(`no engine command: give it after --\n${BRIDGE_USAGE}`);
    return 2;
  }
  let bridge: Bridge;
  try {
    bridge = new Bridge(args.config);
  } catch (e) {
    console.error(`bridge: ${printable((e as Error).message)}`); // e.g. a transcript directory it cannot make
    return 1;
  }
  let signals = 0;
  const onSignal = () => void bridge.stop(++signals > 1);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    try {
      await bridge.start();
    } catch (e) {
      // The message may carry a problem detail from the server: printed inert.
      console.error(`bridge: ${printable((e as Error).message)}`);
      await bridge.stop(true);
      return 1;
    }
    await bridge.stopped;
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
