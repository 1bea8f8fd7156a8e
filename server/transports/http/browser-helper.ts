import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Router } from 'express';

/** The helper's one source: the SDK package ships this same file (`@intake/sdk/browser/intake.js`). */
export const BROWSER_HELPER_PATH = new URL('../../../sdk/browser/intake.js', import.meta.url);

/**
 * `GET /intake.js`: one script for every form, loadable from any site. Sites paste the URL without a version,
 * so a fix must reach them: a day's cache, a week stale-while-revalidate, then a 304 from the ETag.
 */
export function browserHelperRoutes(): Router {
  const script = readFileSync(BROWSER_HELPER_PATH);
  const etag = `"${createHash('sha256').update(script).digest('base64url').slice(0, 22)}"`;
  const router = Router();
  router.get('/intake.js', (_req, res) => {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=86400, stale-while-revalidate=604800');
    res.setHeader('ETag', etag);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.send(script); // answers 304 itself when If-None-Match matches the ETag
  });
  return router;
}
