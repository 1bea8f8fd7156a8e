import { type NextFunction, type Request, type Response, Router } from 'express';
import type { AppContext } from '../../context.ts';
import { AppError, notFound } from '../../domain/shared/errors.ts';
import { closeUnreadBody } from '../http/errors.ts';
import { backLink, isAllowedOrigin, postingOrigin } from '../../domain/forms/origins.ts';
import {
  findPublicForm,
  ingestPost,
  publicFormStatus,
  type IngestOutcome,
  type PublicForm,
} from '../../domain/ingest/ingest.ts';
import { readPostBody } from './body.ts';
import {
  captchaFailedPage,
  duplicatePage,
  fieldErrorsPage,
  formClosedPage,
  formUnavailablePage,
  sendPage,
  thankYouPage,
} from '../http/pages.ts';
import { countPost, countRefusedPost } from '../../infra/metrics/public-posts.ts';

function wantsJson(req: Request, bodyKind: string | null): boolean {
  if (bodyKind === 'json' || (bodyKind === null && req.is('application/json'))) return true;
  const accept = req.headers.accept ?? '';
  return /application\/json/i.test(accept) && req.accepts(['json', 'html']) === 'json';
}

/** A browser navigating (Accept names text/html) rather than a script asking for JSON. */
function wantsHtml(req: Request): boolean {
  return /text\/html/i.test(req.headers.accept ?? '') && req.accepts(['html', 'json']) === 'html';
}

/** CORS headers for an origin the form allows (any origin when its list is empty). */
function allowOrigin(req: Request, res: Response, form: PublicForm): void {
  const origin = req.headers.origin;
  if (!origin || !isAllowedOrigin(form.settings, origin)) return;
  res.setHeader('Access-Control-Allow-Origin', form.settings.allowed_origins.length ? origin : '*');
  res.setHeader('Vary', 'Origin');
}

/** The public form endpoint, `POST /f/{form}`: no token; anything a real form posts. HTTP in, HTTP out. */
export function ingestRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/f/:form/status', async (req, res, next) => {
    try {
      const form = await findPublicForm(ctx, req.params.form);
      if (!form) throw notFound('Form');
      allowOrigin(req, res, form);
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json(await publicFormStatus(ctx, form.id));
    } catch (err) {
      next(err);
    }
  });

  router.options('/f/:form', async (req, res, next) => {
    try {
      const form = await findPublicForm(ctx, req.params.form);
      if (!form) throw notFound('Form');
      allowOrigin(req, res, form);
      if (res.getHeader('Access-Control-Allow-Origin')) {
        res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Accept, Idempotency-Key, X-Requested-With');
        res.setHeader('Access-Control-Max-Age', '600');
      }
      res.status(204).end();
    } catch (err) {
      next(err);
    }
  });

  // The page links back only to the site the visitor came from: `back` must share the origin of the
  // page that sent them here (the browser's Referer), so a crafted link cannot put another site's link here.
  router.get('/f/:form/thanks', (req, res) => {
    const back = typeof req.query.back === 'string' ? req.query.back : null;
    const from = postingOrigin({ origin: null, referrer: req.headers.referer ?? null });
    sendPage(res, 200, thankYouPage(backLink(back, from)));
  });

  router.post('/f/:form', async (req: Request, res: Response, next: NextFunction) => {
    let admitted: PublicForm | null = null;
    try {
      const outcome = await ingestPost(ctx, {
        formId: req.params.form!,
        client: {
          ip: req.ip ?? req.socket.remoteAddress ?? 'unknown',
          origin: req.headers.origin ?? null,
          userAgent: req.headers['user-agent'] ?? null,
          referrer: req.headers.referer ?? null,
        },
        idempotencyKey: req.header('idempotency-key') ?? null,
        readBody: (limits) => readPostBody(req, limits),
        onForm: (form) => {
          admitted = form;
          allowOrigin(req, res, form);
        },
      });
      if (!outcome.bodyKind) req.resume(); // answered without reading the body (an idempotent replay)
      respond(req, res, outcome);
      countPost(outcome);
    } catch (err) {
      countRefusedPost(err instanceof AppError ? err.code : 'internal_error');
      // A refusal is readable by the page that posted (the browser helper shows its message), whichever
      // origin it is: an error body carries nothing the poster did not send or may not know.
      if (req.headers.origin && !res.getHeader('Access-Control-Allow-Origin')) {
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.setHeader('Vary', 'Origin');
      }
      // A person whose browser posted to a form that takes no posts gets a page, not a JSON body.
      if (err instanceof AppError && err.code === 'not_found' && wantsHtml(req)) {
        closeUnreadBody(req, res);
        return sendPage(res, 404, formUnavailablePage(err.message));
      }
      const back = () =>
        backLink(
          req.headers.referer ?? null,
          postingOrigin({ origin: req.headers.origin ?? null, referrer: req.headers.referer ?? null }),
        );
      // A closed form sends a person to its closed page (or shows its message); a repeat is told so.
      if (err instanceof AppError && err.code === 'form_closed' && wantsHtml(req)) {
        closeUnreadBody(req, res);
        const redirect = (admitted as PublicForm | null)?.settings.closed_redirect_url;
        return redirect ? res.redirect(303, redirect) : sendPage(res, 403, formClosedPage(err.message, back()));
      }
      if (err instanceof AppError && err.code === 'duplicate_submission' && wantsHtml(req)) {
        closeUnreadBody(req, res);
        return sendPage(res, 409, duplicatePage(err.message, back()));
      }
      // A post the form refuses (its schema, its CAPTCHA): anyone but a JSON client is shown what to fix.
      if (err instanceof AppError && err.status === 422 && !wantsJson(req, null)) {
        closeUnreadBody(req, res);
        const fields = (err.extra.fields ?? null) as Record<string, string[]> | null;
        return sendPage(res, 422, fields ? fieldErrorsPage(fields, back()) : captchaFailedPage(err.message, back()));
      }
      next(err);
    }
  });

  return router;
}

/** Spam is answered exactly like success: the sender cannot tell. */
function respond(req: Request, res: Response, outcome: IngestOutcome) {
  // `redirect`: where a browser would be sent (a permitted `_next`, else the form's redirect_url), so the
  // browser helper follows only a target the server allowed (sdk/browser/intake.js).
  if (wantsJson(req, outcome.bodyKind)) {
    return void res
      .status(201)
      .json(outcome.redirect ? { ok: true, id: outcome.id, redirect: outcome.redirect } : { ok: true, id: outcome.id });
  }
  const referrer = backLink(
    req.headers.referer ?? null,
    postingOrigin({ origin: req.headers.origin ?? null, referrer: req.headers.referer ?? null }),
  );
  const back = referrer ? `?back=${encodeURIComponent(referrer)}` : '';
  res.redirect(303, outcome.redirect ?? `/f/${outcome.form.id}/thanks${back}`);
}
