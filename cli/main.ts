// First: it holds a signal that comes while the rest loads.
import './early-signals.ts';
import { buildProgram, OWN_COMMANDS } from './program.ts';

// A server or admin command (named first, as commander needs it) loads no API command; help and the rest get them all.
const program = await buildProgram({ api: !OWN_COMMANDS.includes(process.argv[2] ?? '') });

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`intake: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
