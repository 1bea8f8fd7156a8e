import { Router } from 'express';
import type { AppContext } from '../../context.ts';
import { openFileLink } from '../../domain/submissions/file-links.ts';

/** `GET /d/{file}?expires&signature&team`: an export's file link → 302 to a fresh 60-second storage URL. */
export function fileLinkRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/d/:file', async (req, res, next) => {
    try {
      const { expires, signature, team } = req.query;
      const url = await openFileLink(ctx, req.params.file, { expires, signature, team });
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, url);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
