// `dicechess bridge`: parses the flags and the config file, runs a Bridge until it stops (after
// --games N, or on SIGINT/SIGTERM: the first lets the running games finish, the second ends now).
import { Bridge } from './bridge.js';
import { BRIDGE_USAGE, parseBridgeArgs } from './config.js';

export { BRIDGE_USAGE } from './config.js';

export async function bridgeCommand(argv: string[]): Promise<number> {
  const args = parseBridgeArgs(argv);
  if (typeof args === 'string') {
    console.error(`${args}\n${BRIDGE_USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(BRIDGE_USAGE);
    return 0;
  }
  if (args.printConfig) {
    console.log(JSON.stringify(args.config, null, 2));
    return 0;
  }
  if (!args.config.engine.command.length) {
    console.error(`no engine command: give it after --\n${BRIDGE_USAGE}`);
    return 2;
  }
  const bridge = new Bridge(args.config);
  let signals = 0;
  const onSignal = () => void bridge.stop(++signals > 1);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await bridge.start();
  } catch (e) {
    console.error(`bridge: ${(e as Error).message}`);
    await bridge.stop(true);
    return 1;
  }
  await bridge.stopped;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return 0;
}
