import { type Request, type Response, Router } from 'express';
import type { AppContext } from '../../context.ts';
import { describeAction, describeUnsubscribe, performAction, unsubscribe } from '../../domain/notifications/links.ts';
import { AppError } from '../../domain/shared/errors.ts';
import { confirmByToken } from '../../domain/notifications/addresses.ts';
import {
  sendPage,
  actionDonePage,
  actionPromptPage,
  addressConfirmedPage,
  linkInvalidPage,
  unsubscribedPage,
  unsubscribePromptPage,
} from './pages.ts';

/**
 * The links people follow from e-mails, each answered with a small HTML page: `/v` confirms an address, `/a`
 * takes a submission action, `/u` unsubscribes (RFC 8058 one-click too). A GET changes nothing but a
 * confirmation: a scanner fetching links must not delete data.
 */
export function emailLinkRoutes(ctx: AppContext): Router {
  const router = Router();
  const page =
    (fn: (req: Request) => Promise<string>) => async (req: Request, res: Response, next: (err: unknown) => void) => {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Referrer-Policy', 'no-referrer');
      try {
        sendPage(res, 200, await fn(req));
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found')
          return sendPage(res, 404, linkInvalidPage(err.message));
        // The link is sound but cannot act now (its form is in the trash): the page says why.
        if (err instanceof AppError && err.code === 'conflict') return sendPage(res, 409, linkInvalidPage(err.message));
        next(err);
      }
    };
  const token = (req: Request) => String(req.params.token);

  router.get(
    '/v/:token',
    page(async (req) => {
      const { email, team } = await confirmByToken(ctx, token(req));
      return addressConfirmedPage(email, team);
    }),
  );
  router.get(
    '/a/:token',
    page(async (req) => actionPromptPage(await describeAction(ctx, token(req)))),
  );
  router.post(
    '/a/:token',
    page(async (req) => actionDonePage(await performAction(ctx, token(req)))),
  );
  router.get(
    '/u/:token',
    page(async (req) => unsubscribePromptPage(await describeUnsubscribe(ctx, token(req)))),
  );
  router.post(
    '/u/:token',
    page(async (req) => {
      req.resume(); // the one-click body (List-Unsubscribe=One-Click) says nothing more than the POST itself
      return unsubscribedPage(await unsubscribe(ctx, token(req)));
    }),
  );
  return router;
}
