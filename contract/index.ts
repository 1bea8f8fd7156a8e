import { initContract } from '@ts-rest/core';
import { accountContract } from './account.ts';
import { billingContract } from './billing.ts';
import { erasureContract } from './erasure.ts';
import { eventsContract } from './events.ts';
import { formsContract } from './forms.ts';
import { insightsContract } from './insights.ts';
import { jobsContract } from './jobs.ts';
import { submissionsContract } from './submissions.ts';
import { tokensContract } from './tokens.ts';
import { rulesContract } from './rules.ts';
import { triageContract } from './triage.ts';
import { webhooksContract } from './webhooks.ts';

export * from './abilities.ts';
export * from './common.ts';

const c = initContract();

/** The whole API. Route key = operationId = SDK method. */
export const contract = c.router(
  {
    ...accountContract,
    ...tokensContract,
    ...billingContract,
    ...formsContract,
    // Before the submissions routes: express would take `/submissions/stream` for `/submissions/:submission`.
    ...eventsContract,
    ...submissionsContract,
    ...triageContract,
    ...rulesContract,
    ...webhooksContract,
    ...insightsContract,
    ...jobsContract,
    ...erasureContract,
  },
  { strictStatusCodes: true },
);

export type Contract = typeof contract;
export type RouteMetadata = {
  ability: import('./abilities.ts').Ability | null;
  /** What one call may cost, and what meters it (contract/costs.ts). */
  cost: import('./costs.ts').RouteCost;
  /** Further media types of the 200 response (ts-rest has one per status), for openapi.json. */
  alsoAnswers?: Record<string, import('zod').ZodTypeAny>;
  /** The body may also come as multipart/form-data with files (read by the operation as it streams). */
  uploads?: boolean;
};
