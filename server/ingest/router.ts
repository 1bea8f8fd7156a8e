import { type NextFunction, type Request, type Response, Router } from 'express';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { screen } from '../domain/spam.ts';
import {
  acceptSubmission,
  findIdempotent,
  findPublicForm,
  hashIp,
  openPublicForm,
  idempotencyKeyFrom,
  type PublicForm,
  quotaExceeded,
  quotaReached,
  uploadFiles,
} from '../domain/submission-intake.ts';
import { discardSpool, type FieldValue, parseSubmissionBody } from './body.ts';
import { isAllowedOrigin, redirectTarget } from './redirects.ts';
import { thankYouPage } from './thank-you.ts';

/** Reserved control fields: kept out of the payload, recorded in metadata. */
const CONTROL_PREFIX = '_';

function wantsJson(req: Request, bodyKind: string | null): boolean {
  if (bodyKind === 'json') return true;
  const accept = req.headers.accept ?? '';
  return /application\/json/i.test(accept) && req.accepts(['json', 'html']) === 'json';
}

function firstString(value: FieldValue | undefined): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return null;
}

/** CORS per the form's allowed origins (any origin when the list is empty). */
function applyCors(req: Request, res: Response, form: PublicForm): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  if (!isAllowedOrigin(form.settings, origin)) return false;
  res.setHeader('Access-Control-Allow-Origin', form.settings.allowed_origins.length ? origin : '*');
  res.setHeader('Vary', 'Origin');
  return true;
}

/** The public form endpoint, `POST /f/{form}`: no token; anything a real form posts. */
export function ingestRoutes(ctx: AppContext): Router {
  const router = Router();

  router.options('/f/:form', async (req, res, next) => {
    try {
      const form = await findPublicForm(ctx, req.params.form);
      if (!form) throw notFound('Form');
      if (!applyCors(req, res, form)) return void res.status(204).end();
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Accept, Idempotency-Key, X-Requested-With');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
    } catch (err) {
      next(err);
    }
  });

  router.get('/f/:form/thanks', (req, res) => {
    res.type('html').send(thankYouPage(typeof req.query.back === 'string' ? req.query.back : null));
  });

  router.post('/f/:form', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      const ipHash = hashIp(ctx.secretKey, ip);
      const opened = await openPublicForm(ctx, req.params.form!, ipHash);
      if (!opened) throw notFound('Form');
      const { form, hit: { hits, resetSeconds } } = opened;
      if (!applyCors(req, res, form)) throw new AppError('forbidden', 'This origin may not post to this form.');
      if (await quotaReached(ctx, form)) throw quotaExceeded(form);
      if (hits > ctx.config.ingestFloodLimit) {
        res.setHeader('Retry-After', String(resetSeconds));
        throw new AppError('rate_limited', 'Too many submissions from this address. Try again later.', { retry_after: resetSeconds });
      }

      const idempotencyKey = idempotencyKeyFrom(req.header('idempotency-key'));
      if (idempotencyKey) {
        const existing = await findIdempotent(ctx, form.id, idempotencyKey);
        if (existing) {
          req.resume();
          return respond(req, res, form, existing, null, wantsJson(req, null));
        }
      }

      const body = await parseSubmissionBody(req, { maxFileBytes: form.maxFileBytes || 10 * 1024 * 1024 });
      if (body.files.length && !form.fileUploads) {
        discardSpool(body);
        throw new AppError('plan_limit_reached', "File uploads are not included in this form's plan.");
      }

      const payload: Record<string, FieldValue> = {};
      const controls: Record<string, FieldValue> = {};
      for (const [k, v] of Object.entries(body.fields)) (k.startsWith(CONTROL_PREFIX) ? controls : payload)[k] = v;
      const replyTo = firstString(controls._replyto);
      const spamReason = screen({ settings: form.settings, payload, controls, replyTo, rateLimited: hits > ctx.config.ingestRateLimit });

      const submissionId = newId('subm');
      let files;
      try {
        files = await uploadFiles(ctx, form, submissionId, body.files);
      } finally {
        discardSpool(body);
      }
      const accepted = await acceptSubmission(ctx, form, {
        id: submissionId,
        payload,
        files,
        spamReason,
        idempotencyKey,
        metadata: {
          ip,
          ip_hash: ipHash,
          user_agent: req.headers['user-agent'] ?? null,
          referrer: req.headers.referer ?? null,
          origin: req.headers.origin ?? null,
          content_type: body.kind,
          controls,
        },
      });
      respond(req, res, form, accepted.id, firstString(controls._next), wantsJson(req, body.kind));
    } catch (err) {
      next(err);
    }
  });

  return router;
}

/** Spam is answered exactly like success: the sender cannot tell. */
function respond(req: Request, res: Response, form: PublicForm, id: string, next: string | null, json: boolean) {
  if (json) return void res.status(201).json({ ok: true, id });
  const target = redirectTarget(form.settings, next) ?? `/f/${form.id}/thanks${req.headers.referer ? `?back=${encodeURIComponent(req.headers.referer)}` : ''}`;
  res.redirect(303, target);
}
