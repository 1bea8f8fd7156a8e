import { verifyWebhook } from '../../sdk/webhooks.ts';
import type { ReceivedRequest } from '../../test/support/https-receiver.ts';

/**
 * What the soak's receiver was sent, counted by submission id: each receipt's signature is verified as a
 * real receiver would (the SDK's verifyWebhook), and receipts are grouped by the delivery they belong to
 * (`webhook-id`), so a delivery made twice for one submission (a duplicate) is told apart from the same
 * delivery's attempt sent again (the documented at-least-once redelivery after a worker dies mid-attempt).
 */
export class ReceiptTally {
  /** submission id → webhook-id → receipts */
  readonly bySubmission = new Map<string, Map<string, number>>();
  receipts = 0;
  badSignatures = 0;
  unreadable = 0;
  firstAt: number | null = null;
  lastAt: number | null = null;
  readonly samples: string[] = [];

  private readonly secret: string;

  constructor(secret: string) {
    this.secret = secret;
  }

  add(requests: ReceivedRequest[]): void {
    for (const r of requests) {
      this.receipts += 1;
      this.firstAt ??= r.receivedAt;
      this.lastAt = r.receivedAt;
      try {
        verifyWebhook(this.secret, r.headers, r.body);
      } catch (err) {
        this.badSignatures += 1;
        this.sample(`bad signature (${(err as Error).message}) on ${r.headers['webhook-id'] ?? 'no webhook-id'}`);
      }
      let submissionId: unknown;
      try {
        submissionId = (JSON.parse(r.body) as { submission_id?: unknown }).submission_id;
      } catch {
        submissionId = undefined;
      }
      const webhookId = r.headers['webhook-id'];
      if (typeof submissionId !== 'string' || !webhookId) {
        this.unreadable += 1;
        this.sample(`a receipt without submission_id or webhook-id: ${r.body.slice(0, 120)}`);
        continue;
      }
      const deliveries = this.bySubmission.get(submissionId) ?? new Map<string, number>();
      deliveries.set(webhookId, (deliveries.get(webhookId) ?? 0) + 1);
      this.bySubmission.set(submissionId, deliveries);
    }
  }

  private sample(line: string): void {
    if (this.samples.length < 20) this.samples.push(line);
  }
}

/** The rows the audit reads back once the queues are empty. */
export type StoredFacts = {
  /** submission id → status */
  submissions: Map<string, string>;
  /** delivery rows of the soak's webhook: id, submission and status */
  deliveries: Array<{ id: string; submissionId: string | null; status: string; attempts: number }>;
};

export type SoakAudit = {
  accepted: number;
  stored: number;
  /** Submissions whose one delivery row is `succeeded` and whose delivery the receiver got, signed. */
  delivered: number;
  /**
   * Accepted but not stored, stored but not accepted, accepted but never received, accepted without a
   * succeeded delivery row. Each must be 0; `lostSamples` names up to ten ids of each.
   */
  lost: { notStored: number; notAccepted: number; notDelivered: number; notSucceeded: number };
  lostSamples: { notStored: string[]; notAccepted: string[]; notDelivered: string[]; notSucceeded: string[] };
  /** Submissions sent under more than one delivery (webhook-id), or with more than one delivery row. Must be 0. */
  duplicates: number;
  duplicateSamples: string[];
  /** Receipts of a delivery already received (same webhook-id): at-least-once resends after the kill. */
  redeliveries: number;
  /** Redelivered deliveries the killed worker did not hold when it died: must be empty. */
  unexplainedRedeliveries: string[];
  /** Receipts whose webhook-id is not the delivery row of that submission, or of no accepted submission. */
  strayReceipts: number;
  badSignatures: number;
  statuses: Record<string, number>;
  deliveryStatuses: Record<string, number>;
};

const sample = <T>(xs: Iterable<T>, n = 10): T[] => [...xs].slice(0, n);
const countBy = (xs: Iterable<string>) => {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
};

/**
 * accepted = stored = delivered, as sets of submission ids: every 201's id is a stored row, every row
 * was answered 201, every one was processed (a soak posts clean contact forms), has exactly one delivery
 * row, `succeeded`, and that delivery reached the receiver signed. Receipts of the same delivery sent again
 * are allowed only for deliveries the killed worker held (`heldAtKill`), where at-least-once says they may.
 */
export function auditSoak(
  accepted: Set<string>,
  stored: StoredFacts,
  tally: ReceiptTally,
  heldAtKill: Set<string>,
): SoakAudit {
  const rowsBySubmission = new Map<string, StoredFacts['deliveries']>();
  for (const d of stored.deliveries) {
    if (!d.submissionId) continue;
    rowsBySubmission.set(d.submissionId, [...(rowsBySubmission.get(d.submissionId) ?? []), d]);
  }
  const notStored = [...accepted].filter((id) => !stored.submissions.has(id));
  const notAccepted = [...stored.submissions.keys()].filter((id) => !accepted.has(id));
  const notSucceeded: string[] = [];
  const notDelivered: string[] = [];
  const duplicateSamples: string[] = [];
  let duplicates = 0;
  let delivered = 0;
  let redeliveries = 0;
  let strayReceipts = 0;
  const unexplained: string[] = [];
  for (const id of accepted) {
    const rows = rowsBySubmission.get(id) ?? [];
    const received = tally.bySubmission.get(id) ?? new Map<string, number>();
    if (rows.length > 1 || received.size > 1) {
      duplicates += 1;
      if (duplicateSamples.length < 10)
        duplicateSamples.push(`${id}: ${rows.length} delivery rows, received under ${[...received.keys()].join(', ')}`);
    }
    const row = rows[0];
    if (row?.status !== 'succeeded') notSucceeded.push(id);
    if (!row || !received.has(row.id)) {
      notDelivered.push(id);
    } else if (row.status === 'succeeded' && rows.length === 1 && received.size === 1) {
      delivered += 1;
    }
    for (const [webhookId, n] of received) {
      if (webhookId !== row?.id) strayReceipts += n;
      if (n > 1) {
        redeliveries += n - 1;
        if (!heldAtKill.has(webhookId)) unexplained.push(webhookId);
      }
    }
  }
  for (const [id, received] of tally.bySubmission) {
    if (!accepted.has(id)) for (const n of received.values()) strayReceipts += n;
  }
  return {
    accepted: accepted.size,
    stored: stored.submissions.size,
    delivered,
    lost: {
      notStored: notStored.length,
      notAccepted: notAccepted.length,
      notDelivered: notDelivered.length,
      notSucceeded: notSucceeded.length,
    },
    lostSamples: {
      notStored: sample(notStored),
      notAccepted: sample(notAccepted),
      notDelivered: sample(notDelivered),
      notSucceeded: sample(notSucceeded),
    },
    duplicates,
    duplicateSamples,
    redeliveries,
    unexplainedRedeliveries: sample(unexplained),
    strayReceipts,
    badSignatures: tally.badSignatures,
    statuses: countBy(stored.submissions.values()),
    deliveryStatuses: countBy(stored.deliveries.map((d) => d.status)),
  };
}
