import { randomFillSync } from 'node:crypto';
import { decodeTime, ulid } from 'ulid';
import { notFound } from './errors.ts';

export type IdPrefix =
  | 'team'
  | 'usr'
  | 'frm'
  | 'subm'
  | 'file'
  | 'wh'
  | 'whd'
  | 'tok'
  | 'job'
  | 'sub'
  | 'inv'
  | 'evt'
  | 'ins'
  | 'era'
  | 'note'
  | 'rule';

/**
 * CSPRNG bytes from a pool refilled 4 KiB at a time: ulid's own source makes a crypto call per character,
 * and the public endpoint makes an id per post. A byte over 256 picks one of 32 characters evenly.
 */
const randomPool = Buffer.alloc(4096);
let poolAt = randomPool.length;
function pooledRandom(): number {
  if (poolAt === randomPool.length) {
    randomFillSync(randomPool);
    poolAt = 0;
  }
  return randomPool[poolAt++]! / 256;
}

/** Prefixed ULIDs: sortable by creation time, unguessable enough to be path ids. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid(undefined, pooledRandom).toLowerCase()}`;
}

/**
 * Whether a record with this id may exist without being visible yet: made less than a minute ago. On Citus a
 * job (a coordinator table) commits before the shard row it names (two-phase commit prepares the workers,
 * commits the coordinator, then the workers), and a worker may fetch the job in between.
 */
export function mayBeUnseen(id: string, now = Date.now()): boolean {
  const at = id.indexOf('_');
  try {
    return mayBeUnseenSince(decodeTime(id.slice(at + 1).toUpperCase()), now);
  } catch {
    return false;
  }
}

/** The same for a change made at `at` (a job's `at`): its shard rows may not be visible yet. */
export function mayBeUnseenSince(at: number | string, now = Date.now()): boolean {
  return now - new Date(at).getTime() < UNSEEN_MS;
}

const UNSEEN_MS = 60_000;

/** Whether `id` has the shape of an id with this prefix: checked before any query uses it. */
export function isId(prefix: IdPrefix, id: string): boolean {
  return (
    id.length === prefix.length + 27 &&
    id.startsWith(`${prefix}_`) &&
    /^[0-9a-z]{26}$/.test(id.slice(prefix.length + 1))
  );
}

/** Path parameters that name a record, with the id prefix and the name of what they name. */
const PATH_IDS: Record<string, [IdPrefix, string]> = {
  form: ['frm', 'Form'],
  submission: ['subm', 'Submission'],
  file: ['file', 'File'],
  note: ['note', 'Note'],
  rule: ['rule', 'Rule'],
  token: ['tok', 'Token'],
  webhook: ['wh', 'Webhook'],
  webhook_id: ['wh', 'Webhook'],
  delivery: ['whd', 'Delivery'],
  delivery_id: ['whd', 'Delivery'],
  job_id: ['job', 'Job'],
  erasure: ['era', 'Erasure request'],
};

/** 404 for a path parameter that cannot be the id it names (prefix + ULID), before any query sees it. */
export function assertPathIds(params: Record<string, unknown>): void {
  for (const [param, value] of Object.entries(params)) {
    const expected = PATH_IDS[param];
    if (expected && !isId(expected[0], String(value))) throw notFound(expected[1]);
  }
}
