import type { Command } from 'commander';
import { EXIT } from './exit-status.ts';

/** Help is laid out at this width in docs/cli.md, whatever the terminal that generates it. */
const WIDTH = 100;

/** What each exit status means (their numbers come from EXIT). */
const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  server: 'the server failed (5xx), or the command did',
  usage: 'usage: an unknown command or option, a missing or conflicting argument, or a 400/413/415 from the API',
  auth: 'not allowed: 401, 402 or 403 (check the token and its abilities)',
  notFound: 'not found: 404 (the id is wrong, or belongs to another team)',
  conflict: 'conflict: 409, 412 or 423',
  rateLimited: 'rate limited: 429 (wait and try again)',
};

/** A command's full `--help` (custom help text included, as the binary prints it), with no colour. */
function helpOf(cmd: Command): string {
  let text = '';
  cmd.configureOutput({
    writeOut: (s) => void (text += s),
    getOutHelpWidth: () => WIDTH,
    getOutHasColors: () => false,
  });
  cmd.outputHelp();
  return text.trimEnd();
}

const fullName = (cmd: Command): string => (cmd.parent ? `${fullName(cmd.parent)} ${cmd.name()}` : cmd.name());

/** Every command below `program`, parents before their subcommands, in the order `--help` lists them. */
function walk(cmd: Command): Command[] {
  return cmd.commands.flatMap((sub) => [sub, ...walk(sub)]);
}

/**
 * docs/cli.md: the reference of the `intake` command, generated from the command tree the binary runs
 * (scripts/generate-cli-docs.ts writes it; test/cli/docs.test.ts fails when the committed file differs).
 */
export function cliReference(program: Command): string {
  const commands = walk(program);
  const anchor = (cmd: Command) => fullName(cmd).replace(/ /g, '-');
  const lines = [
    '# The `intake` command',
    '',
    '<!-- Generated from the command tree (cli/program.ts) by `npm run cli-docs` (also run by `npm run openapi`). Do not edit:',
    '     test/cli/docs.test.ts fails when this file differs from what the tree generates. -->',
    '',
    'One binary runs Intake (`serve`, `worker`, `migrate`, `dev`, `mcp`), administers its database (`admin`), and',
    'calls its API (every other command, through the SDK: one command per contract operation).',
    '',
    '- **Connection.** `INTAKE_URL` and `INTAKE_TOKEN` when set; otherwise the profile saved by `intake login`',
    '  (`--profile` picks another).',
    '- **Scope.** A form-scoped command takes the form as `--form <id>`, a webhook-scoped one also `--webhook <id>`;',
    '  the record a command acts on is a positional id: `intake submissions get subm_… --form frm_…`. Scripts',
    '  written for earlier versions, which gave the form and webhook as positional arguments first, still run;',
    '  giving one both ways with different values is a usage error.',
    '- **Fields.** Query and body fields are `--kebab-case` options: lists comma-separated, objects as JSON.',
    "- **Output.** A table or details for people; `--json` prints exactly the API's `data` as one JSON document.",
    '  Messages and errors go to stderr.',
    '',
    '| Exit status | Meaning |',
    '| --- | --- |',
    '| 0 | success (also `--help` and `--version`) |',
    ...(Object.keys(EXIT) as Array<keyof typeof EXIT>)
      .sort((a, b) => EXIT[a] - EXIT[b])
      .map((k) => `| ${EXIT[k]} | ${EXIT_MEANINGS[k]} |`),
    '',
    '## Commands',
    '',
    ...commands.map(
      (cmd) =>
        `${'  '.repeat(fullName(cmd).split(' ').length - 2)}- [\`${fullName(cmd)}\`](#${anchor(cmd)}) — ${cmd.description().split('  [')[0]}`,
    ),
    '',
    '## intake',
    '',
    '```',
    helpOf(program),
    '```',
  ];
  for (const cmd of commands)
    lines.push('', `<a id="${anchor(cmd)}"></a>`, '', `## ${fullName(cmd)}`, '', '```', helpOf(cmd), '```');
  return `${lines.join('\n')}\n`;
}
