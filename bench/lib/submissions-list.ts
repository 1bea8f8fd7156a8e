import { isInterrupted } from './cleanup.ts';
import { listPageQuery, type PageSpec } from '../../server/infra/db/queries/submissions.ts';
import { checkInterrupted, explain, log, round, type BenchContext } from './submissions-context.ts';

/** The submissions benchmark's list part: page 1, a deep page by offset and by cursor, and search. */

export type Latency = { requests: number; p50: number; p90: number; p99: number; max: number; avg: number };

function percentiles(ms: number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!, 2);
  return {
    requests: s.length,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    max: round(s[s.length - 1]!, 2),
    avg: round(s.reduce((a, b) => a + b, 0) / s.length, 2),
  };
}

type Page = { data: Array<{ id: string }>; meta: { total: number; current_page: number; next_cursor: string | null } };

export async function getPage(url: string, token: string): Promise<{ ms: number; page: Page }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 300)}`);
  return { ms, page: JSON.parse(body) as Page };
}

async function sequential(url: string, token: string, n: number): Promise<Latency> {
  for (let i = 0; i < 20; i++) await getPage(url, token); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    checkInterrupted();
    ms.push((await getPage(url, token)).ms);
  }
  return percentiles(ms);
}

async function concurrent(
  url: string,
  token: string,
  connections: number,
  seconds: number,
): Promise<Latency & { reqPerSec: number }> {
  const ms: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until && !isInterrupted()) ms.push((await getPage(url, token)).ms);
    }),
  );
  return { ...percentiles(ms), reqPerSec: Math.round(ms.length / seconds) };
}

/** Page 1, page N by offset and page N by cursor (reached by following next_cursor once). */
export async function measureList(c: BenchContext) {
  const { opts, perPage, account, server } = c;
  const base = `${server.url}/v1/forms/${account.formId}/submissions`;
  log(`following next_cursor from page 1 to page ${opts.page.toLocaleString('en')} (per_page=${perPage})`);
  const walkStarted = performance.now();
  const walkMs: number[] = [];
  let cursor: string | null = null;
  let seen = 0;
  for (let p = 1; p < opts.page; p++) {
    checkInterrupted();
    const r: { ms: number; page: Page } = await getPage(
      `${base}?per_page=${perPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      account.token,
    );
    walkMs.push(r.ms);
    seen += r.page.data.length;
    cursor = r.page.meta.next_cursor;
    if (!cursor) throw new Error(`next_cursor ran out on page ${p}`);
    if (p % 2000 === 0) log(`  … page ${p.toLocaleString('en')}`);
  }
  const walk = {
    pages: opts.page - 1,
    rows: seen,
    seconds: round((performance.now() - walkStarted) / 1000),
    latency: percentiles(walkMs),
  };
  const byCursor = await getPage(`${base}?per_page=${perPage}&cursor=${encodeURIComponent(cursor!)}`, account.token);
  const byOffset = await getPage(`${base}?per_page=${perPage}&page=${opts.page}`, account.token);
  const sameRows =
    JSON.stringify(byCursor.page.data.map((s) => s.id)) === JSON.stringify(byOffset.page.data.map((s) => s.id));
  if (!sameRows) c.notes.push(`the cursor page after ${opts.page - 1} pages differs from ?page=${opts.page}`);

  // Full-text search (issue 14), one word each: a unique address (one match), a last name (1 in 12 rows),
  // and the same name as a prefix.
  // Row 123,457 of the inbox; at a small --rows, the middle one (beyond the inbox there is no row to search for).
  const rareOffset = Math.min(123456, Math.floor((opts.rows * 0.9) / 2));
  const [rare] = (
    await c.admin.query<{ email: string }>(
      `select payload->>'email' as email from submissions where form_id = $1 and status <> 'spam' order by received_at limit 1 offset $2`,
      [account.formId, rareOffset],
    )
  ).rows;
  const scenarios: Record<string, string> = {
    page1: `${base}?per_page=${perPage}`,
    [`page${opts.page}`]: `${base}?per_page=${perPage}&page=${opts.page}`,
    cursorDeep: `${base}?per_page=${perPage}&cursor=${encodeURIComponent(cursor!)}`,
    searchAddress: `${base}?per_page=${perPage}&q=${encodeURIComponent(rare!.email)}`,
    searchName: `${base}?per_page=${perPage}&q=tanaka`,
    searchPrefix: `${base}?per_page=${perPage}&q=tana`,
    // Triage filters: a tag on 4 % of the submissions, and a stage with an assignee (0.25 %).
    tagVip: `${base}?per_page=${perPage}&tag=vip`,
    stageAssignee: `${base}?per_page=${perPage}&stage=in_progress&assignee=me`,
  };
  const results: Record<
    string,
    { url: string; sequential: Latency; concurrent: (Latency & { reqPerSec: number }) | null }
  > = {};
  for (const [name, url] of Object.entries(scenarios)) {
    checkInterrupted();
    const seq = await sequential(url, account.token, opts.requests);
    log(`list ${name}: sequential p50 ${seq.p50} ms, p99 ${seq.p99} ms (${seq.requests} requests)`);
    const conc = opts.connections ? await concurrent(url, account.token, opts.connections, opts.duration) : null;
    if (conc)
      log(`list ${name}: ${opts.connections} clients p50 ${conc.p50} ms, p99 ${conc.p99} ms, ${conc.reqPerSec} req/s`);
    results[name] = { url: url.replace(server.url, ''), sequential: seq, concurrent: conc };
  }

  // The page queries exactly as listSubmissions runs them (server/infra/db/queries/submissions.ts).
  const inbox = { teamId: account.teamId, formId: account.formId, folder: 'inbox' as const };
  const listPlan = (page: PageSpec) => {
    const q = listPageQuery(inbox, page);
    return explain(c.admin, q.text, q.values);
  };
  const [cursorTs, cursorId] = JSON.parse(Buffer.from(cursor!, 'base64url').toString('utf8')) as [string, string];
  const plans = {
    page1: await listPlan({ limit: perPage + 1, offset: 0 }),
    deepPage: await listPlan({ limit: perPage + 1, offset: (opts.page - 1) * perPage }),
    cursor: await listPlan({ limit: perPage + 1, offset: 0, after: [cursorTs, cursorId] }),
    // The two ways searchPage takes (server/infra/db/queries/submissions.ts): a common word within the newest
    // rows, with its capped count; a rare one (an address) through the GIN index.
    searchNameWindow: await explain(
      c.admin,
      `with recent as materialized (select s.id, s.received_at, s.search from submissions s where s.form_id = $1 and s.status <> 'spam'
         order by s.received_at desc, s.id desc limit 5000)
       select r.id from recent r where r.search @@ submission_search_query($2) order by r.received_at desc, r.id desc limit ${perPage + 1}`,
      [account.formId, 'tanaka'],
    ),
    searchNameCount: await explain(
      c.admin,
      `select count(*) from (select 1 from submissions s where s.form_id = $1 and s.status <> 'spam' and s.search @@ submission_search_query($2)
         order by s.received_at desc, s.id desc limit 1001) m`,
      [account.formId, 'tanaka'],
    ),
    searchAddress: await explain(
      c.admin,
      `with matches as materialized (select s.id, s.received_at from submissions s where s.form_id = $1 and s.status <> 'spam' and s.search @@ submission_search_query($2))
       select m.id from matches m order by m.received_at desc, m.id desc limit ${perPage + 1}`,
      [account.formId, rare!.email],
    ),
  };
  return { perPage, deepPage: opts.page, walk, cursorMatchesOffsetPage: sameRows, scenarios: results, plans };
}
