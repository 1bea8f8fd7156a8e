import type { Command } from 'commander';
import { fail, UsageError } from './exit-status.ts';

/** Completion of commands, subcommands and options, from the command tree itself. */
export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const lines: string[] = [];
  const walk = (cmd: Command, prefix: string) => {
    const words = [...cmd.commands.map((c) => c.name()), ...cmd.options.map((o) => o.long!).filter(Boolean)];
    lines.push(`    "${prefix}") words="${words.join(' ')}" ;;`);
    for (const sub of cmd.commands) walk(sub, prefix ? `${prefix} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  const body = `_intake() {
  local cur path words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) path="\${path:+$path }\${COMP_WORDS[i]}" ;; esac
  done
  case "$path" in
${lines.join('\n')}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
`;
  return shell === 'bash'
    ? `${body}complete -F _intake intake\n`
    : `autoload -U +X bashcompinit && bashcompinit\n${body}complete -F _intake intake\n`;
}
/** `intake completion bash|zsh`. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script: eval "$(intake completion bash)", or add it to ~/.zshrc')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh') fail(new UsageError('completion: bash or zsh'));
      process.stdout.write(completionScript(program, shell as 'bash' | 'zsh'));
    });
}
