/** How API answers are shown to people: tables, key/value details, relative times, colour only on a terminal. */

export function useColour(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb';
}
export const paint = (code: number, text: string, on: boolean) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/** "3 minutes ago", "in 2 days", for timestamps in human output. */
export function relative(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const units: Array<[number, string]> = [
    [31_536_000, 'year'],
    [2_592_000, 'month'],
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, unit] = units.find(([s]) => Math.abs(seconds) >= s) ?? [1, 'second'];
  const n = Math.round(Math.abs(seconds) / size);
  const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return seconds < 0 ? `${text} ago` : seconds === 0 ? 'now' : `in ${text}`;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return ISO.test(value) ? relative(value) : value.replace(/\p{Cc}/gu, ' ');
  if (typeof value === 'object') return JSON.stringify(value).slice(0, 60);
  return String(value);
}

/** Columns of a table: the scalar fields of the first rows (ids first), at most eight. */
function columns(rows: Array<Record<string, unknown>>): string[] {
  const keys: string[] = [];
  for (const row of rows.slice(0, 5))
    for (const [k, v] of Object.entries(row))
      if (!keys.includes(k) && (v === null || typeof v !== 'object' || k === 'payload')) keys.push(k);
  return keys.sort((a, b) => Number(b === 'id') - Number(a === 'id')).slice(0, 8);
}

export function table(rows: Array<Record<string, unknown>>, colour: boolean): string {
  if (!rows.length) return '';
  const cols = columns(rows);
  const width = Math.max(40, (process.stdout.columns ?? 160) - 2);
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  const widths = cols.map((c, i) => Math.min(40, Math.max(c.length, ...cells.map((r) => r[i]!.length))));
  const line = (values: string[]) =>
    values
      .map((v, i) => (v.length > widths[i]! ? `${v.slice(0, widths[i]! - 1)}…` : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
      .slice(0, width);
  return [paint(1, line(cols.map((c) => c.toUpperCase())), colour), ...cells.map(line)].join('\n');
}

function details(value: Record<string, unknown>, colour: boolean): string {
  const keys = Object.keys(value);
  const pad = Math.max(...keys.map((k) => k.length));
  return keys
    .map(
      (k) =>
        `${paint(2, k.padEnd(pad), colour)}  ${typeof value[k] === 'object' && value[k] !== null ? JSON.stringify(value[k]) : cell(value[k])}`,
    )
    .join('\n');
}

export function print(body: unknown, json: boolean): void {
  const data = body && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : body;
  if (json) {
    process.stdout.write(`${JSON.stringify(data ?? null, null, 2)}\n`);
    return;
  }
  const colour = useColour();
  if (Array.isArray(data)) {
    const out = table(data as Array<Record<string, unknown>>, colour);
    if (out) process.stdout.write(`${out}\n`);
    else process.stderr.write('nothing to list\n');
    const meta = (body as { meta?: { next_cursor?: string | null; current_page?: number | null; last_page?: number } })
      .meta;
    if (meta?.next_cursor) process.stderr.write(`more: --cursor ${meta.next_cursor}\n`);
    else if (meta?.current_page && meta.last_page && meta.current_page < meta.last_page)
      process.stderr.write(`page ${meta.current_page} of ${meta.last_page}: --page ${meta.current_page + 1}\n`);
  } else if (data && typeof data === 'object')
    process.stdout.write(`${details(data as Record<string, unknown>, colour)}\n`);
  else process.stdout.write(`${JSON.stringify(data)}\n`);
  // A secret or token shown once: say so.
  for (const key of ['secret', 'token'] as const) {
    const once = (body as Record<string, unknown> | null)?.[key];
    if (typeof once === 'string') process.stdout.write(`${paint(33, `${key} (shown once):`, colour)} ${once}\n`);
  }
}

/** A spinner on stderr while `work` runs (TTY only). */

export async function spinning<T>(label: string, work: Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return work;
  const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
  let i = 0;
  const timer = setInterval(() => process.stderr.write(`\r${frames[i++ % frames.length]} ${label}`), 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    process.stderr.write('\r\u001b[2K');
  }
}
