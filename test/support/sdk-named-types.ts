/**
 * Compile-time checks of the SDK's named types (test/contract/openapi-tools.test.ts runs tsc on this file alone):
 * they are exported by the names openapi.json gives its components, and equal what the contract's zod
 * schemas infer, so the SDK's answers (typed by the contract) are exactly these types.
 */
import type { z } from 'zod';
import type { ErrorCode } from '../../contract/errors.ts';
import type { Form as FormSchema } from '../../contract/forms.ts';
import type { Insights as InsightsSchema } from '../../contract/insights.ts';
import type { Job as JobSchema } from '../../contract/jobs.ts';
import type { SubmissionDetail as SubmissionDetailSchema, SubmissionListItem } from '../../contract/submissions.ts';
import type { TokenMetadata } from '../../contract/tokens.ts';
import type { Delivery as DeliverySchema, Webhook as WebhookSchema } from '../../contract/webhooks.ts';
import type {
  Delivery,
  ErrorBody,
  Form,
  Insights,
  Job,
  Submission,
  SubmissionDetail,
  Token,
  Webhook,
} from '../../sdk/index.ts';
import type { components } from '../../sdk/openapi-types.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assignable<A, B> = [A] extends [B] ? true : false;
type Check<T extends true> = T;

export type Checks = [
  Check<Same<Form, z.infer<typeof FormSchema>>>,
  Check<Same<Submission, z.infer<typeof SubmissionListItem>>>,
  Check<Same<SubmissionDetail, z.infer<typeof SubmissionDetailSchema>>>,
  Check<Same<Webhook, z.infer<typeof WebhookSchema>>>,
  Check<Same<Delivery, z.infer<typeof DeliverySchema>>>,
  Check<Same<Insights, z.infer<typeof InsightsSchema>>>,
  Check<Same<Job, z.infer<typeof JobSchema>>>,
  Check<Same<Token, z.infer<typeof TokenMetadata>>>,
  // The published ErrorBody names its code from the closed list; the SDK's also holds its own codes.
  Check<Assignable<components['schemas']['ErrorBody'], ErrorBody>>,
  Check<Same<components['schemas']['ErrorBody']['error'], ErrorCode>>,
  Check<Same<components['schemas']['Form'], Form>>,
];
