import type { Readable } from 'node:stream';
import type { FormSettings } from '../../../contract/forms.ts';
import type { StoredCaptcha } from '../spam/captcha.ts';
import type { SpamReason } from '../spam/spam.ts';
import type { BodyLimits } from './limits.ts';

/** A published, live form as the public endpoint needs it, with its team's plan limits. */
export type PublicForm = {
  id: string;
  teamId: string;
  settings: FormSettings;
  /** The form's CAPTCHA with its secret still encrypted, or null. */
  captcha: StoredCaptcha | null;
  /** Spam is notified too (instant mode, with addresses). */
  notifySpam: boolean;
  /** An enabled rule runs on spam: spam posts carry the job that runs the rules (and then notifies). */
  spamRules: boolean;
  monthlyLimit: number | null;
  fileUploads: boolean;
  maxFileBytes: number;
  /** The plan's storage for files, across the team; null = unlimited. */
  storageLimit: number | null;
  /** The clean submissions it keeps, when it has a `max_submissions`. */
  kept: number | null;
};

export type FieldValue = string | number | boolean | null | FieldValue[] | { [k: string]: FieldValue };

/** A file of a post, spooled by whoever read the body; `open` streams it once to storage. */
export type PostedFile = { field: string; filename: string; contentType: string; size: number; open(): Readable };

export type PostedBody = {
  kind: 'urlencoded' | 'multipart' | 'json';
  fields: Record<string, FieldValue>;
  files: PostedFile[];
  /** Frees what the reader spooled (temporary files); called once the post is stored or refused. */
  discard(): void;
};

/** A body read as it streams (multipart with files), within the limits the reader is given. */
export type Upload = (limits: BodyLimits) => Promise<PostedBody>;

/** Who posted, as far as the endpoint can tell; a server-side submit may not know the address. */
export type ClientFacts = {
  ip: string | null;
  origin: string | null;
  userAgent: string | null;
  referrer: string | null;
};

/**
 * A post to a form, from any door (the HTTP endpoint, an import, a tool). The body is read only once the
 * post is admitted — an unknown form, a refused origin, a spent quota or a flood never costs a body read.
 */
export type IncomingPost = {
  formId: string;
  client: ClientFacts;
  /** The Idempotency-Key as sent (hashed before it is stored). */
  idempotencyKey: string | null;
  readBody(limits: BodyLimits): Promise<PostedBody>;
  /** Called once the form is known and the origin allowed (the endpoint answers CORS from it). */
  onForm?(form: PublicForm): void;
  /**
   * A server-side submit's token (`POST /v1/forms/{form}/submissions`): no honeypot, no CAPTCHA, and the
   * per-address limits only for an address it names. Absent for the public endpoint.
   */
  apiTokenId?: string;
};

export type IngestOutcome = {
  form: PublicForm;
  id: string;
  /** An Idempotency-Key already held this submission: nothing new was stored. */
  replayed: boolean;
  /** Where a browser goes next, when the form or a permitted `_next` says (null: the thank-you page). */
  redirect: string | null;
  /** How the body came, when it was read. */
  bodyKind: PostedBody['kind'] | null;
  /** Why it was stored as spam (null: clean, or replayed); the endpoint's metrics count it. */
  spamReason?: SpamReason | null;
};
