import { Router } from 'express';
import type { AppContext } from '../context.ts';
import { AppError } from '../domain/errors.ts';
import { verifyFileLink } from '../domain/file-links.ts';
import { SIGNED_URL_SECONDS } from '../domain/submissions.ts';

/** `GET /d/{file}?expires&signature`: an export's file link → 302 to a fresh 60-second storage URL. */
export function fileLinkRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/d/:file', async (req, res, next) => {
    try {
      const { expires, signature } = req.query;
      if (typeof expires !== 'string' || typeof signature !== 'string' || !verifyFileLink(ctx.secretKey, req.params.file, expires, signature)) {
        throw new AppError('forbidden', 'This download link is invalid or has expired.');
      }
      const { rows } = await ctx.pool.query<{ storage_key: string; filename: string }>(
        'select storage_key, filename from submission_files where id = $1',
        [req.params.file],
      );
      if (!rows[0]) throw new AppError('not_found', 'File not found.');
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, await ctx.storage.presignedGet(rows[0].storage_key, SIGNED_URL_SECONDS, rows[0].filename || req.params.file));
    } catch (err) {
      next(err);
    }
  });
  return router;
}
