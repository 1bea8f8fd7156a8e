import { Router } from 'express';
import type { AppContext } from '../context.ts';
import { AppError } from '../domain/errors.ts';
import { confirmByToken } from '../domain/notification-addresses.ts';
import { addressConfirmedPage, linkInvalidPage } from './pages.ts';

/** `GET /v/{token}`: a notification address's confirmation link (from its e-mail) → an HTML page. */
export function addressLinkRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/v/:token', async (req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      const { email, team } = await confirmByToken(ctx, req.params.token);
      res.type('html').send(addressConfirmedPage(email, team));
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return void res.status(404).type('html').send(linkInvalidPage(err.message));
      next(err);
    }
  });
  return router;
}
