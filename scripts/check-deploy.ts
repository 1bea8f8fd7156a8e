/**
 * `make check` for the deployment files: compose.yaml against the Compose specification's JSON schema
 * (deploy/compose-spec/, vendored), then the rules for the image and the topology, and that
 * test/platform/production-install.test.ts still takes its commands from the same reader (scripts/deploy-files.ts).
 * Prints each problem and exits 1 if there is any.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import {
  intakeProcesses,
  readCompose,
  readImage,
  type Compose,
  type ComposeService,
  type Image,
} from './deploy-files.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

export function composeSchemaErrors(compose: unknown): string[] {
  const schema = JSON.parse(read('deploy/compose-spec/compose-spec.json')) as Record<string, unknown>;
  // The schema names draft-07 by an https URL ajv does not know as its meta-schema; the keywords are draft-07's.
  delete schema.$schema;
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validate = ajv.compile(schema);
  if (validate(compose)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `compose.yaml${e.instancePath.replaceAll('/', '.') || ' (top level)'}: ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
  );
}

/** The Node version the Makefile pins for Linux, which the image must run too. */
function pinnedNode(): string {
  const m = /^NODE_VERSION := .*,(\d+\.\d+\.\d+)\)\s*$/m.exec(read('Makefile'));
  if (!m) throw new Error('Makefile: NODE_VERSION not found');
  return m[1]!;
}

export function imageProblems(image: Image, node = pinnedNode()): string[] {
  const problems: string[] = [];
  for (const base of image.bases) {
    if (base !== `node:${node}-bookworm-slim`)
      problems.push(`Dockerfile: base ${base} is not node:${node}-bookworm-slim (the Node the Makefile pins)`);
  }
  if (image.bases.length < 2)
    problems.push('Dockerfile: not multi-stage (dependencies are installed in a stage of their own)');
  if (image.install.slice(0, 3).join(' ') !== 'npm ci --omit=dev')
    problems.push(`Dockerfile: the install is "${image.install.join(' ')}", not npm ci --omit=dev`);
  if (!image.user || /^(root|0)(:|$)/.test(image.user)) problems.push('Dockerfile: USER is root or missing');
  if (image.stopSignal !== 'SIGTERM') problems.push('Dockerfile: STOPSIGNAL SIGTERM missing');
  if (!image.healthcheck?.includes('/readyz')) problems.push('Dockerfile: HEALTHCHECK does not ask /readyz');
  if (image.entrypoint.at(-1) !== 'cli/main.ts')
    problems.push(`Dockerfile: ENTRYPOINT ${JSON.stringify(image.entrypoint)} does not run cli/main.ts`);
  for (const p of image.copied)
    if (!fs.existsSync(path.join(ROOT, p))) problems.push(`Dockerfile: COPY ${p}: no such path`);
  return problems;
}

/** The deployed topology: one migrate, two API processes, two workers, all of one image. */
const EXPECTED_PROCESSES = ['migrate', 'serve --no-worker', 'serve --no-worker', 'worker', 'worker'];

/** The proxy is the one service that faces the network, and only with HTTP and HTTPS. */
const PROXY_IMAGE = /^caddy:/;
const PROXY_PORTS = new Set(['80', '443']);

/** A `ports` entry's container port, from the short syntax (`[ip:][host:]container[/protocol]`) or the long one. */
const containerPort = (entry: PortEntry) =>
  String(typeof entry === 'object' ? entry.target : entry)
    .replace(/\/\w+$/, '')
    .split(':')
    .at(-1);

type PortEntry = string | number | { target?: number | string };

/** Services that reach the host's network other than through the proxy's HTTP and HTTPS ports. */
export function exposureProblems(compose: {
  services: Record<string, ComposeService & { ports?: PortEntry[]; network_mode?: string }>;
}): string[] {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(compose.services)) {
    const proxy = typeof s.image === 'string' && PROXY_IMAGE.test(s.image);
    if (s.network_mode === 'host')
      problems.push(`compose.yaml: ${name} uses the host's network, which publishes every port it listens on`);
    for (const entry of s.ports ?? []) {
      if (!proxy)
        problems.push(
          `compose.yaml: ${name} publishes ${JSON.stringify(entry)}; only the proxy may publish a port (route it through deploy/Caddyfile)`,
        );
      else if (!PROXY_PORTS.has(containerPort(entry) ?? ''))
        problems.push(`compose.yaml: the proxy ${name} publishes ${JSON.stringify(entry)}; only 80 and 443`);
    }
  }
  return problems;
}

export function composeProblems(compose: Compose): string[] {
  const problems = exposureProblems(compose);
  const processes = intakeProcesses(compose);
  const commands = processes.map((p) => p.command.join(' ')).sort();
  if (JSON.stringify(commands) !== JSON.stringify([...EXPECTED_PROCESSES].sort())) {
    problems.push(
      `compose.yaml: Intake processes ${JSON.stringify(commands)}, expected ${JSON.stringify(EXPECTED_PROCESSES)}`,
    );
  }
  for (const { service, command } of processes) {
    const s = compose.services[service]!;
    const servesHttp = command[0] === 'serve';
    const healthcheck = s.healthcheck;
    if (!servesHttp && !healthcheck?.disable)
      problems.push(`compose.yaml: ${service} serves no HTTP; disable the image's /readyz healthcheck`);
    if (servesHttp && healthcheck?.disable)
      problems.push(`compose.yaml: ${service} serves HTTP; keep the image's /readyz healthcheck`);
  }
  const postgres = Object.values(compose.services).find(
    (s) => typeof s.image === 'string' && s.image.startsWith('postgres:'),
  );
  if (!postgres || !/^postgres:18\b/.test(postgres.image as string))
    problems.push('compose.yaml: no Postgres 18 service');
  if (!/^\.env$/m.test(read('.gitignore'))) problems.push(".gitignore: .env (compose.yaml's secrets) is not ignored");
  return problems;
}

/** The production-install test must run what this reader says, not commands of its own. */
function testProblems(): string[] {
  const test = read('test/platform/production-install.test.ts');
  const uses = ['readImage', 'intakeProcesses'].filter((name) => !test.includes(name));
  return uses.length
    ? [
        `test/platform/production-install.test.ts: does not take its commands from scripts/deploy-files.ts (${uses.join(', ')} unused)`,
      ]
    : [];
}

if (import.meta.main) {
  const compose = readCompose();
  const problems = [
    ...composeSchemaErrors(compose),
    ...imageProblems(readImage()),
    ...composeProblems(compose),
    ...testProblems(),
  ];
  for (const p of problems) console.error(`deploy: ${p}`);
  if (problems.length) process.exit(1);
  console.log(
    `deploy: compose.yaml valid against the Compose specification; Dockerfile and compose.yaml as issue 29 asks (${intakeProcesses(compose).length} Intake processes)`,
  );
}
