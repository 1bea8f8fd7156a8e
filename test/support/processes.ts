import { spawn } from 'node:child_process';

export type ProcessResult = { code: number | null; stdout: string; stderr: string };

/** Runs a command to completion with no stdin, collecting its output. */
export function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
