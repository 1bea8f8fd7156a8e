import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deriveKeys } from '../../server/infra/secret-key.ts';

/**
 * The run's captured logs (in-process apps, child processes, Postgres) are scanned for secrets when the run
 * ends (global-setup.ts). A secret is found by its format (API tokens, webhook secrets, signed e-mail link
 * tokens, export link signatures, CAPTCHA secrets, passwords in URLs) or because the run is known to hold
 * it (each server secret the tests' apps used and every key derived from it, the configured secrets, the
 * database's password). Things meant to be logged are not secrets: a token's last4, ids, hashes, an export
 * link's scoped key (file-links.ts).
 */

/** Captured logs, one file per app or process: `<scratch>/logs`. */
export const logDir = (scratch: string) => path.join(scratch, 'logs');
/** The secrets the run's apps and processes hold, recorded by the harness (never scanned). */
const knownDir = (scratch: string) => path.join(scratch, 'known-secrets');

export type KnownSecret = { label: string; value: string };
export type Finding = { file: string; line: number; kind: string; excerpt: string };

type Known = { secretKeys: string[]; passwords: string[] };

/** Records secrets an app or process of this run holds, so the scan looks for them verbatim. */
export function rememberSecrets(scratch: string, known: { secretKeys?: Buffer[]; env?: NodeJS.ProcessEnv }): void {
  const record: Known = {
    secretKeys: (known.secretKeys ?? []).map((k) => k.toString('hex')),
    passwords: configuredSecrets(known.env ?? {}),
  };
  if (!record.secretKeys.length && !record.passwords.length) return;
  const text = JSON.stringify(record);
  const dir = knownDir(scratch);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`), text, {
    mode: 0o600,
  });
}

/** The server secret an environment gives a process: INTAKE_SECRET_KEY, else the one in its data dir (if made yet). */
export function envSecretKey(env: NodeJS.ProcessEnv): Buffer | null {
  if (env.INTAKE_SECRET_KEY) return createHash('sha256').update(env.INTAKE_SECRET_KEY).digest();
  if (!env.INTAKE_DATA_DIR) return null;
  try {
    return Buffer.from(fs.readFileSync(path.join(env.INTAKE_DATA_DIR, 'secret-key'), 'utf8').trim(), 'base64');
  } catch {
    return null;
  }
}

/** The secrets an environment configures: URL passwords, INTAKE_SECRET_KEY as given, an OpenAI key. */
function configuredSecrets(env: NodeJS.ProcessEnv): string[] {
  const found: string[] = [];
  for (const name of ['DATABASE_URL', 'STORAGE_URL', 'SMTP_URL']) {
    const value = env[name];
    if (value && URL.canParse(value)) found.push(decodeURIComponent(new URL(value).password));
  }
  found.push(env.INTAKE_SECRET_KEY ?? '', env.OPENAI_API_KEY ?? '');
  return found.filter((s) => s.length >= 12); // shorter ones (s3rver's S3RVER, a test's "test") would match ordinary words
}

/** Every secret recorded for the run, each server secret with its derived keys, in the encodings a log could show. */
export function knownSecrets(
  scratch: string,
  extra: { secretKeys?: Buffer[]; passwords?: string[] } = {},
): KnownSecret[] {
  const secretKeys = new Set((extra.secretKeys ?? []).map((k) => k.toString('hex')));
  const passwords = new Set(extra.passwords ?? []);
  const dir = knownDir(scratch);
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const record = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Known;
    record.secretKeys.forEach((k) => secretKeys.add(k));
    record.passwords.forEach((p) => passwords.add(p));
  }
  return [...secretKeys]
    .flatMap((hex) => keyNeedles(Buffer.from(hex, 'hex')))
    .concat([...passwords].map((value) => ({ label: 'a configured secret or password', value })));
}

/** The server secret and each key derived from it, as hex, base64 and base64url. */
export function keyNeedles(secret: Buffer): KnownSecret[] {
  const keys: [string, Buffer][] = [
    ['the server secret', secret],
    ...Object.entries(deriveKeys(secret)).map(([purpose, key]): [string, Buffer] => [`the ${purpose} key`, key]),
  ];
  return keys.flatMap(([label, key]) =>
    [
      ...new Set([
        key.toString('hex'),
        key.toString('base64'),
        key.toString('base64').replace(/=+$/, ''),
        key.toString('base64url'),
      ]),
    ].map((value) => ({ label, value })),
  );
}

type Pattern = {
  kind: string;
  /** Finds candidates fast: each starts with a literal, so the engine skips ahead. */
  re: RegExp;
  /** Where the secret of a candidate lies, or null when it is not one (default: the match itself). */
  span?: (m: RegExpExecArray, text: string) => { start: number; end: number } | null;
  /** How the report shows it. */
  shown: (secret: string) => string;
};

const B64URL = 'A-Za-z0-9_\\-';
/** Placeholders a message may show instead of a password. */
const MASKED = /^(\*+|x+|•+|…|\.\.\.|redacted|\[redacted\]|<[^>]*>|pass|password|secret)$/i;

/** The start of the run of `chars` that ends at `end`. */
function runStart(text: string, end: number, chars: RegExp): number {
  let start = end;
  while (start > 0 && chars.test(text[start - 1]!)) start--;
  return start;
}

const PATTERNS: Pattern[] = [
  // server/domain/accounts/tokens.ts: intk_ + 40 base62. The last4 alone, or the id (tok_…), is not the token.
  { kind: 'API token', re: /intk_[0-9A-Za-z]{40}(?![0-9A-Za-z])/g, shown: () => 'intk_…' },
  // server/infra/outbound/signing.ts: whsec_ + base64 of 32 bytes (listen --secret takes any whsec_ + base64).
  { kind: 'webhook secret', re: /whsec_[A-Za-z0-9+/]{20,}={0,2}/g, shown: () => 'whsec_…' },
  // server/domain/notifications/signed-tokens.ts: base64url(parts joined by U+001F) "." base64url(HMAC-SHA256) — the
  // bearer capability of /v/, /a/ and /u/ links.
  {
    kind: 'signed link token',
    re: new RegExp(`\\.[${B64URL}]{43}(?![${B64URL}.])`, 'g'),
    span: (m, text) => {
      const start = runStart(text, m.index, /[A-Za-z0-9_-]/);
      if (m.index - start < 8 || text[start - 1] === '.') return null;
      const parts = Buffer.from(text.slice(start, m.index), 'base64url').toString('utf8');
      return parts.includes('\u001f') ? { start, end: m.index + m[0].length } : null;
    },
    shown: () => '….…',
  },
  // server/domain/submissions/file-links.ts: an export download link works for 7 days for whoever holds it.
  {
    kind: 'export link signature',
    re: /[?&]expires=\d+&signature=[0-9a-f]{64}(?![0-9a-f])/g,
    shown: () => '?expires=…&signature=…',
  },
  // CAPTCHA provider secrets (what forms store encrypted): Turnstile 0x4AAAAA…, hCaptcha 0x + 40 hex,
  // reCAPTCHA 6L + 38.
  {
    kind: 'Turnstile secret',
    re: new RegExp(`(?<![${B64URL}])0x4AAAAA[${B64URL}]{16,}`, 'g'),
    shown: () => '0x4AAAAA…',
  },
  { kind: 'hCaptcha secret', re: /(?<![\w])0x[0-9a-fA-F]{40}(?![\w])/g, shown: () => '0x…' },
  {
    kind: 'reCAPTCHA secret',
    re: new RegExp(`(?<![${B64URL}])6L[${B64URL}]{38}(?![${B64URL}])`, 'g'),
    shown: () => '6L…',
  },
  {
    kind: 'password in a URL',
    re: /:\/\/([^\s/:@"'<>]*):([^\s/@"'<>]+)@/g,
    span: (m, text) => {
      const start = runStart(text, m.index, /[A-Za-z0-9+.-]/);
      if (start === m.index || MASKED.test(decodeURIComponent(m[2]!))) return null;
      return { start, end: m.index + m[0].length };
    },
    shown: (url) => url.replace(/:[^:]*@$/, ':***@'),
  },
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

type Hit = { kind: string; start: number; end: number; shown: string };

/** Characters of the keys' encodings (hex, base64, base64url). */
const KEY_CHARS = /^[A-Za-z0-9+/=_-]+$/;
const PREFIX = 12;

/**
 * A scanner for one set of known secrets: answers every secret in a text, by position. Keys (hundreds in a
 * run: each data dir's secret and its derived keys, in three encodings) are looked up window by window in
 * the runs of their characters; other known secrets (passwords) by one regular expression.
 */
export function scanner(known: KnownSecret[]): (text: string) => Hit[] {
  const keys = new Map<string, string>();
  const others = new Map<string, string>();
  for (const k of known) (KEY_CHARS.test(k.value) && k.value.length >= 40 ? keys : others).set(k.value, k.label);
  const lengths = [...new Set([...keys.keys()].map((k) => k.length))].sort((a, b) => b - a);
  const prefixes = new Set([...keys.keys()].map((k) => k.slice(0, PREFIX)));
  const runs = lengths.length ? new RegExp(`(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{${lengths.at(-1)},}`, 'g') : null;
  const needles = others.size
    ? new RegExp(
        [...others.keys()]
          .sort((a, b) => b.length - a.length)
          .map(escapeRegExp)
          .join('|'),
        'g',
      )
    : null;
  return (text) => {
    const hits: Hit[] = [];
    for (const p of PATTERNS) {
      for (const m of text.matchAll(p.re)) {
        const at = p.span ? p.span(m, text) : { start: m.index, end: m.index + m[0].length };
        if (at) hits.push({ kind: p.kind, ...at, shown: `[${p.kind}: ${p.shown(text.slice(at.start, at.end))}]` });
      }
    }
    for (const m of runs ? text.matchAll(runs) : []) {
      for (let i = 0; i < m[0].length; i++) {
        if (!prefixes.has(m[0].substr(i, PREFIX))) continue;
        const length = lengths.find((l) => i + l <= m[0].length && keys.has(m[0].substr(i, l)));
        if (length === undefined) continue;
        const label = keys.get(m[0].substr(i, length))!;
        hits.push({ kind: label, start: m.index + i, end: m.index + i + length, shown: `[${label}]` });
        i += length - 1;
      }
    }
    for (const m of needles ? text.matchAll(needles) : []) {
      hits.push({
        kind: others.get(m[0])!,
        start: m.index,
        end: m.index + m[0].length,
        shown: `[${others.get(m[0])}]`,
      });
    }
    return hits.sort((a, b) => a.start - b.start);
  };
}

/** The line around a hit, every secret in it replaced by a label (hits sorted by start). */
function excerpt(line: string, hits: Hit[], at: Hit): string {
  let from = Math.max(0, at.start - 80);
  let to = Math.min(line.length, at.end + 80);
  for (const h of hits) {
    if (h.start < from && h.end > from) from = h.start;
    if (h.start < to && h.end > to) to = h.end;
  }
  let out = '';
  let pos = from;
  for (const h of hits) {
    if (h.end <= from || h.start >= to) continue;
    if (h.start >= pos) {
      out += line.slice(pos, h.start) + h.shown;
      pos = h.end;
    } else if (h.end > pos) {
      pos = h.end; // overlapping hits: the first one's label covers both
    }
  }
  out += line.slice(pos, to);
  return `${from > 0 ? '…' : ''}${out}${to < line.length ? '…' : ''}`;
}

/** The findings in `text` (whole lines), its first line being number `firstLine`. */
function findingsIn(scan: (text: string) => Hit[], text: string, file: string, firstLine = 1): Finding[] {
  const hits = scan(text);
  const findings: Finding[] = [];
  let line = firstLine;
  let counted = 0;
  for (const hit of hits) {
    const start = text.lastIndexOf('\n', hit.start - 1) + 1;
    const next = text.indexOf('\n', hit.end);
    const end = next === -1 ? text.length : next;
    for (let i = text.indexOf('\n', counted); i !== -1 && i < start; i = text.indexOf('\n', i + 1)) line++;
    counted = start;
    const onLine = hits
      .filter((h) => h.start >= start && h.end <= end)
      .map((h) => ({ ...h, start: h.start - start, end: h.end - start }));
    findings.push({
      file,
      line,
      kind: hit.kind,
      excerpt: excerpt(text.slice(start, end), onLine, { ...hit, start: hit.start - start, end: hit.end - start }),
    });
  }
  return findings;
}

/** Scans text (a whole log) and answers each secret found with its line number and a redacted excerpt. */
export function scanText(text: string, known: KnownSecret[], file = '(text)'): Finding[] {
  return findingsIn(scanner(known), text, file);
}

/**
 * Scans files in chunks of whole lines (a Postgres log runs to tens of megabytes; most chunks hold no
 * match, so each pattern runs once per chunk); at most `limit` findings per file. `allowed` names the
 * kinds a file may hold.
 */
export async function scanFiles(
  files: string[],
  known: KnownSecret[],
  opts: { limit?: number; allowed?: (file: string) => string[] } = {},
): Promise<{ findings: Finding[]; bytes: number }> {
  const limit = opts.limit ?? 5;
  const scan = scanner(known);
  const findings: Finding[] = [];
  let bytes = 0;
  for (const file of files) {
    const allowed = new Set(opts.allowed?.(file) ?? []);
    let line = 1;
    let rest = '';
    let found = 0;
    const take = (text: string) => {
      if (found < limit) {
        const f = findingsIn(scan, text, file, line)
          .filter((x) => !allowed.has(x.kind))
          .slice(0, limit - found);
        found += f.length;
        findings.push(...f);
      }
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) line++;
    };
    for await (const chunk of fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 4 << 20 })) {
      bytes += Buffer.byteLength(chunk as string);
      const text = rest + (chunk as string);
      const cut = text.lastIndexOf('\n') + 1;
      rest = text.slice(cut);
      take(text.slice(0, cut));
    }
    if (rest) take(rest);
  }
  return { findings, bytes };
}

/** The report a failing run prints: each finding with its file, line and redacted excerpt. */
export function describeFindings(findings: Finding[]): string {
  return findings.map((f) => `${f.file}:${f.line}: ${f.kind}\n    ${f.excerpt}`).join('\n');
}

/** Every regular file under `dir`. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * Scans the run's captured logs and the Postgres log; throws, naming each file and line with a redacted
 * excerpt, when a secret is found. Answers a one-line summary otherwise.
 */
export async function scanRunLogs(
  scratch: string,
  opts: { postgresLog?: string; postgresPassword?: string | null } = {},
): Promise<string> {
  const started = Date.now();
  const files = [
    ...filesUnder(logDir(scratch)),
    ...(opts.postgresLog && fs.existsSync(opts.postgresLog) ? [opts.postgresLog] : []),
  ];
  const known = knownSecrets(scratch, {
    secretKeys: [envSecretKey({ INTAKE_DATA_DIR: scratch })].filter((k) => k !== null),
    passwords: opts.postgresPassword ? [opts.postgresPassword] : [],
  });
  // The statement log shows what the database stores: the delivery log keeps request bodies, whose file
  // links are signed (and the exports' statements hold their scoped link keys, file-links.ts). What the
  // database never holds in the clear (tokens, webhook and CAPTCHA secrets, keys, passwords) it must not show.
  const allowed = (file: string) => (file === opts.postgresLog ? ['export link signature'] : []);
  const { findings, bytes } = await scanFiles(files, known, { allowed });
  const where = findings.map((f) => ({ ...f, file: path.relative(scratch, f.file) }));
  const summary = `secret scan: ${files.length} log files, ${(bytes / 1e6).toFixed(1)} MB, ${known.length} known secrets, ${Date.now() - started} ms`;
  if (where.length) throw new Error(`${summary}: secrets in the run's logs\n${describeFindings(where.slice(0, 50))}`);
  return `${summary}: no secrets`;
}
