import { isIP } from 'node:net';
import type { z } from 'zod';
import type { CreateSubmissionBody, SubmissionDetail } from '../../../contract/submissions.ts';
import type { AppContext } from '../../context.ts';
import { formStatus } from '../../infra/db/queries/forms.ts';
import { findSubmission } from '../../infra/db/queries/submissions.ts';
import type { Caller } from '../accounts/caller.ts';
import { requireForm } from '../forms/live-form.ts';
import { AppError, notFound, validationFailed } from '../shared/errors.ts';
import { submissionDetail } from '../submissions/view.ts';
import { findPublicForm, ingestPost, type ClientFacts, type FieldValue, type PostedBody } from './ingest.ts';
import { bodyLimitsFor, checkPostedFields } from './limits.ts';
import type { Upload } from './post.ts';

type Body = z.infer<typeof CreateSubmissionBody>;

/** The client parts of a multipart submit (`client[ip]`, …), taken out of its fields. */
const CLIENT_PARTS = { ip: 'client[ip]', user_agent: 'client[user_agent]', referrer: 'client[referrer]' } as const;

/**
 * `POST /v1/forms/{form}/submissions`: a post from the team's own server, through the public endpoint's rules
 * (ingestPost) without its browser guards — no CORS, honeypot or CAPTCHA, and the per-address limits only for
 * the address it names. Answers the stored submission as the API shows it (its folder and spam reason too).
 */
export async function submitFromServer(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  input: { body?: Body; upload?: Upload; idempotencyKey: string | null },
): Promise<z.infer<typeof SubmissionDetail>> {
  await requireForm(ctx, caller, formId);
  // The caller sees the form: a draft is a state to change (409), not a form that is not there.
  if ((await formStatus(ctx.db, caller.teamId, formId)) === 'draft') {
    throw new AppError('conflict', 'This form is a draft: publish it to take submissions.');
  }
  const { body, client } = input.upload ? await readUpload(ctx, formId, input.upload) : jsonSubmit(input.body!);
  try {
    const outcome = await ingestPost(ctx, {
      formId,
      client,
      idempotencyKey: input.idempotencyKey,
      readBody: async () => body,
      apiTokenId: caller.tokenId,
    });
    const row = await findSubmission(ctx.db, caller.teamId, formId, outcome.id);
    // An Idempotency-Key repeated after its submission was deleted.
    if (!row) throw notFound('Submission');
    return submissionDetail(ctx, row);
  } finally {
    body.discard();
  }
}

function jsonSubmit(input: Body): { body: PostedBody; client: ClientFacts } {
  checkPostedFields(input.fields);
  return {
    body: { kind: 'json', fields: input.fields as Record<string, FieldValue>, files: [], discard: () => {} },
    client: {
      ip: input.client?.ip ?? null,
      origin: null,
      userAgent: input.client?.user_agent ?? null,
      referrer: input.client?.referrer ?? null,
    },
  };
}

/** A multipart submit, read within the form's file limits; its client parts become the client facts. */
async function readUpload(
  ctx: AppContext,
  formId: string,
  upload: Upload,
): Promise<{ body: PostedBody; client: ClientFacts }> {
  const form = await findPublicForm(ctx, formId);
  const body = await upload(bodyLimitsFor(form ?? { fileUploads: false, maxFileBytes: 0 }));
  const part = (name: string): string | null => {
    const value = body.fields[name];
    delete body.fields[name];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  const client = {
    ip: part(CLIENT_PARTS.ip),
    origin: null,
    userAgent: part(CLIENT_PARTS.user_agent),
    referrer: part(CLIENT_PARTS.referrer),
  };
  if (client.ip !== null && !isIP(client.ip)) {
    body.discard();
    throw validationFailed([{ in: 'body', path: CLIENT_PARTS.ip, message: 'Must be an IPv4 or IPv6 address.' }]);
  }
  return { body, client };
}
