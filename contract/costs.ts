import { PUBLIC_POST_LIMITS } from './public-endpoint.ts';

/**
 * What one call of an operation may cost, declared on its route (`metadata.cost`) and enforced from there or
 * by the rule it names: the budget it spends, the most it reads at once, and the per-team bounds that meter
 * it beyond the team's lane (every operation runs in one: INTAKE_TEAM_CONCURRENCY at once per process).
 * SECURITY.md "Operation budgets" is generated from these declarations.
 */
export type RouteCost = {
  /**
   * `api`: one request of the token's API budget (INTAKE_API_RATE_LIMIT a minute, then 429); `submit`: one of the
   * token's server-side submits (INTAKE_SUBMIT_TOKEN_RATE_LIMIT a minute); `none`: nothing beyond the lane.
   */
  budget: 'api' | 'submit' | 'none';
  /**
   * The most rows one call reads at once (`form` or `team`: a scan of all of them, in the database, under a
   * one-at-a-time cap and the statement timeout), and the most payload bytes it holds in this process.
   */
  reads: { rows: number | 'form' | 'team'; payloadBytes: number };
  /** A per-team bound besides the lane. */
  cap?: TeamCap;
  /** The per-team share of the job queue its work waits in. */
  queue?: QueueShare;
};

/** At most this many open event streams per token, and per team (across every API process). */
export const STREAM_LIMITS = { token: 5, team: 20 } as const;
/** Events in one JSON answer (and in one read of a stream). */
export const STREAM_BATCH = 100;

export const TEAM_CAPS = {
  exports:
    'At most INTAKE_EXPORTS_PER_TEAM (2) exports of a team at once over every process; each reads in chunks of at most 5,000 rows or 16 MiB, holding no connection between them',
  streams: `At most ${STREAM_LIMITS.token} open event streams per token and ${STREAM_LIMITS.team} per team over every process`,
  searches: "With `q`: a team's full-text searches take turns, one at a time per process, each within a time budget",
  scans:
    "A team's whole-data scans take turns: one at a time per process, each starting a second or five times the last one's run after it started (a fifth of a backend's time at most), 4 more in line for at most 10 s, then 429",
  regeneration: 'One regeneration per team every 5 minutes (409 `already_running` meanwhile)',
} as const;
export type TeamCap = keyof typeof TEAM_CAPS;

export const QUEUE_SHARES = {
  replays:
    "A team's replayed deliveries go out in turns of 100 with other teams' bulk work, at most INTAKE_REPLAY_TEAM_RATE a second; fresh deliveries go first",
  erasures:
    "A team's erasure jobs go in turns with other teams', one each, and run one at a time over every process (a worker runs two, of two teams); each keeps to a fifth of a backend's time",
  insights:
    'At most one generation per team is queued (the regeneration lock; the weekly schedule queues one per team and week)',
} as const;
export type QueueShare = keyof typeof QUEUE_SHARES;

/** The largest payload the public endpoint stores (its body limit). */
const PAYLOAD = PUBLIC_POST_LIMITS.bodyBytes;
/** A list's largest page. */
const PAGE = 100;

/** What a suggested schema reads of the form's newest inbox submissions, at most. */
export const SUGGESTION_SAMPLE = { rows: 1000, bytes: 4 * 1024 * 1024 };
/** What an insights generation reads of the week's clean submissions' text, newest first, at most. */
export const INSIGHTS_SAMPLE = { rows: 20_000, bytes: 16 * 1024 * 1024 };

/** The costs routes declare. */
export const COSTS = {
  row: { budget: 'none', reads: { rows: 1, payloadBytes: 0 } },
  records: { budget: 'none', reads: { rows: PAGE, payloadBytes: 0 } },
  fields: { budget: 'none', reads: { rows: 500, payloadBytes: 0 } },
  meteredRow: { budget: 'api', reads: { rows: 1, payloadBytes: 0 } },
  meteredRecords: { budget: 'api', reads: { rows: PAGE, payloadBytes: 0 } },
  submission: { budget: 'api', reads: { rows: 1, payloadBytes: PAYLOAD } },
  submit: { budget: 'submit', reads: { rows: 1, payloadBytes: PAYLOAD } },
  submissions: { budget: 'api', reads: { rows: PAGE, payloadBytes: PAGE * PAYLOAD }, cap: 'searches' },
  deliveries: { budget: 'api', reads: { rows: PAGE, payloadBytes: PAGE * PAYLOAD } },
  bulk: { budget: 'api', reads: { rows: 500, payloadBytes: 0 } },
  stream: { budget: 'api', reads: { rows: STREAM_BATCH, payloadBytes: STREAM_BATCH * PAYLOAD }, cap: 'streams' },
  export: { budget: 'api', reads: { rows: 5000, payloadBytes: 16 * 1024 * 1024 }, cap: 'exports' },
  replayWebhook: { budget: 'api', reads: { rows: 500, payloadBytes: 0 }, queue: 'replays' },
  formScan: { budget: 'api', reads: { rows: 'form', payloadBytes: 0 }, cap: 'scans' },
  suggestion: { budget: 'api', reads: { rows: SUGGESTION_SAMPLE.rows, payloadBytes: SUGGESTION_SAMPLE.bytes } },
  regeneration: {
    budget: 'api',
    reads: { rows: INSIGHTS_SAMPLE.rows, payloadBytes: INSIGHTS_SAMPLE.bytes },
    cap: 'regeneration',
    queue: 'insights',
  },
  erasure: { budget: 'api', reads: { rows: 'team', payloadBytes: 0 }, cap: 'scans', queue: 'erasures' },
} as const satisfies Record<string, RouteCost>;
