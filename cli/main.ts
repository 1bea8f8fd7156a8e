// First: it holds a signal that comes while the rest loads. The rest is imported dynamically, so the hold is in
// place as soon as Node runs this file rather than once the whole command line's module graph has loaded.
import './early-signals.ts';

const { buildProgram, OWN_COMMANDS } = await import('./program.ts');

// A server or admin command (named first, as commander needs it) loads no API command; help and the rest get them all.
const program = await buildProgram({ api: !OWN_COMMANDS.includes(process.argv[2] ?? '') });

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`intake: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
