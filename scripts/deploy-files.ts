import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * What the deployment files say, read from the files themselves: the one source of the commands that
 * scripts/check-deploy.ts checks and test/platform/production-install.test.ts runs, so the test cannot drift from the
 * image it stands for.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
export const DOCKERFILE = path.join(ROOT, 'Dockerfile');
export const COMPOSE_FILE = path.join(ROOT, 'compose.yaml');

export type Instruction = { keyword: string; args: string; line: number };
export type Stage = { from: string; name: string | null; instructions: Instruction[] };

/** The Dockerfile's stages, each with its instructions (continuation lines joined, comments dropped). */
export function dockerfileStages(text = fs.readFileSync(DOCKERFILE, 'utf8')): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let line = lines[i]!.trim();
    if (!line || line.startsWith('#')) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args, line: start };
    if (instruction.keyword === 'FROM') {
      const [, from = '', name = null] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(args) ?? [];
      stages.push({ from, name, instructions: [] });
    } else if (stages.length) stages.at(-1)!.instructions.push(instruction);
    else if (instruction.keyword !== 'ARG')
      throw new Error(`Dockerfile line ${start}: ${instruction.keyword} before any FROM`);
  }
  return stages;
}

/** An exec-form (JSON array) argument, as ENTRYPOINT and CMD take it. */
function execForm(instruction: Instruction | undefined, what: string): string[] {
  if (!instruction) throw new Error(`Dockerfile has no ${what}`);
  const value: unknown = JSON.parse(instruction.args);
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new Error(`Dockerfile line ${instruction.line}: ${what} must be a JSON array of strings`);
  return value;
}

export type Image = {
  /** The base images, in stage order. */
  bases: string[];
  /** The dependency install, run in the image's working directory on package.json and package-lock.json alone. */
  install: string[];
  /** Paths of the build context the final stage copies (the runtime needs nothing else). */
  copied: string[];
  entrypoint: string[];
  cmd: string[];
  user: string | null;
  stopSignal: string | null;
  healthcheck: string | null;
  env: Record<string, string>;
};

export function readImage(text?: string): Image {
  const stages = dockerfileStages(text);
  const final = stages.at(-1);
  if (!final) throw new Error('Dockerfile has no FROM');
  const all = stages.flatMap((s) => s.instructions);
  const last = (keyword: string) => final.instructions.filter((i) => i.keyword === keyword).at(-1);
  const installs = all.filter((i) => i.keyword === 'RUN' && /^npm ci\b/.test(i.args));
  if (installs.length !== 1) throw new Error(`Dockerfile: expected one RUN npm ci, found ${installs.length}`);
  const copied = final.instructions
    .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
    .flatMap((i) =>
      i.args
        .split(/\s+/)
        .filter((a) => !a.startsWith('--'))
        .slice(0, -1),
    );
  const env: Record<string, string> = {};
  for (const i of final.instructions.filter((i) => i.keyword === 'ENV')) {
    for (const m of i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  }
  return {
    bases: stages.map((s) => s.from),
    install: installs[0]!.args.split(/\s+/),
    copied,
    entrypoint: execForm(last('ENTRYPOINT'), 'ENTRYPOINT'),
    cmd: execForm(last('CMD'), 'CMD'),
    user: last('USER')?.args ?? null,
    stopSignal: last('STOPSIGNAL')?.args ?? null,
    healthcheck: last('HEALTHCHECK')?.args ?? null,
    env,
  };
}

/** The parts of a service these checks read; the schema checks the rest. */
export type ComposeService = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  deploy?: { replicas?: number };
  healthcheck?: { disable?: boolean };
};
export type Compose = { services: Record<string, ComposeService> };

/** compose.yaml as Compose reads it (anchors and `<<` merge keys resolved), before variable interpolation. */
export function readCompose(text = fs.readFileSync(COMPOSE_FILE, 'utf8')): Compose {
  return parse(text, { merge: true }) as Compose;
}

/**
 * The services that run the Intake image (`intake:<tag>`, built from the Dockerfile), each as often as it is
 * replicated. Another service may build an image of its own (compose.yaml's `garage-init` does).
 */
export function intakeProcesses(compose: Compose = readCompose()): Array<{ service: string; command: string[] }> {
  return Object.entries(compose.services)
    .filter(([, s]) => typeof s.image === 'string' && s.image.startsWith('intake:'))
    .flatMap(([service, s]) =>
      Array.from({ length: s.deploy?.replicas ?? 1 }, () => ({ service, command: s.command ?? readImage().cmd })),
    );
}

/**
 * A service's environment as Compose would hand it over: `${VAR}`, `${VAR:-default}` and `${VAR:?message}`
 * substituted from `vars` (the .env file's role), `$$` left as one `$`. A required variable missing throws.
 */
export function serviceEnvironment(
  service: string,
  vars: Record<string, string>,
  compose: Compose = readCompose(),
): Record<string, string> {
  const environment = compose.services[service]?.environment;
  if (!environment || Array.isArray(environment)) throw new Error(`compose.yaml: ${service} has no environment map`);
  const interpolate = (value: string) =>
    value.replace(
      /\$\$|\$\{(\w+)(?:(:-|:\?)([^}]*))?\}/g,
      (match, name: string | undefined, op: string | undefined, arg: string | undefined) => {
        if (match === '$$') return '$';
        const set = vars[name!];
        if (set !== undefined && set !== '') return set;
        if (op === ':?') throw new Error(`compose.yaml: ${service} needs ${name} (${arg})`);
        return op === ':-' ? arg! : '';
      },
    );
  return Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, interpolate(String(v))]));
}
