import type { Command, Option } from 'commander';

/**
 * Commander stops at the first missing mandatory option; Intake names all of them in one error, so a
 * user fixes the command line once. Commands keep declaring `requiredOption` (it reads as what it means);
 * this takes the check over: it runs before every action, once commander has handled --help and
 * unknown options, and reports the way commander does (its message for one option, exit status 1).
 */
export function reportMissingOptionsTogether(program: Command): void {
  const required = new Map<Command, Option[]>();
  const collect = (command: Command) => {
    const mandatory = command.options.filter((o) => o.mandatory);
    for (const option of mandatory) option.mandatory = false;
    if (mandatory.length) required.set(command, mandatory);
    command.commands.forEach(collect);
  };
  collect(program);

  program.hook('preAction', (_program, command) => {
    const missing = (required.get(command) ?? []).filter(
      (o) => command.getOptionValue(o.attributeName()) === undefined,
    );
    if (missing.length === 0) return;
    const flags = missing.map((o) => `'${o.flags}'`);
    command.error(
      flags.length === 1
        ? `error: required option ${flags[0]} not specified`
        : `error: required options ${flags.slice(0, -1).join(', ')} and ${flags.at(-1)} not specified`,
      { code: 'commander.missingMandatoryOptionValue' },
    );
  });
}
