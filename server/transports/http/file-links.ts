import { Router } from 'express';
import type { AppContext } from '../../context.ts';
import { openFileLink } from '../../domain/submissions/file-links.ts';

/** `GET /d/{file}?expires&signature`: an export's file link → 302 to a fresh 60-second storage URL. */
export function fileLinkRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/d/:file', async (req, res, next) => {
    try {
      const url = await openFileLink(ctx, req.params.file, req.query.expires, req.query.signature);
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, url);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
