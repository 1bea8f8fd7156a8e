import { Command } from 'commander';
import { registerAdmin } from './admin.ts';
import { reportMissingOptionsTogether } from './required-options.ts';
import { registerServerCommands } from './server-commands.ts';
import { VERSION } from './version.ts';

/** The commands that run or administer Intake; every other one talks to an Intake over its API. */
export const OWN_COMMANDS = ['serve', 'worker', 'migrate', 'dev', 'mcp', 'admin'];

/**
 * The whole `intake` command tree: docs/cli.md and the CLI tests read it as the binary runs it. `api: false`
 * leaves out the API commands, built from the whole contract and the SDK: a tenth of a second of loading that
 * a server or admin command never uses.
 */
export async function buildProgram({ api = true }: { api?: boolean } = {}): Promise<Command> {
  const program = new Command();
  program
    .name('intake')
    .description('Intake — collects form submissions, filters spam, lists and exports them')
    .version(VERSION, '-V, --version', 'print the version and exit')
    .showHelpAfterError()
    // A usage error (unknown option or command, missing argument or option) exits 2; help and version 0.
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
  registerServerCommands(program);
  registerAdmin(program);
  if (api) {
    const [{ registerApi }, { registerLogin }, { registerListen }, { registerCompletion }] = await Promise.all([
      import('./api.ts'),
      import('./profiles.ts'),
      import('./listen.ts'),
      import('./completion.ts'),
    ]);
    registerApi(program);
    registerLogin(program);
    registerCompletion(program);
    registerListen(program);
  }
  reportMissingOptionsTogether(program);
  return program;
}
