import { readFileSync } from 'node:fs';
import { Router, type NextFunction, type Request, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';

const OPENAPI_PATH = new URL('../../../openapi.json', import.meta.url);
const OPENAPI_URL = '/v1/openapi.json';

// The page may only load what this server serves: a future option that pulls a script, font or
// stylesheet from a CDN is blocked by the browser (and fails the docs-page test) instead of working
// only online. swagger-ui styles itself with inline styles and data: images.
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

const uiOptions: swaggerUi.SwaggerUiOptions = {
  customSiteTitle: 'Intake API reference',
  swaggerUrl: OPENAPI_URL,
  swaggerOptions: {
    persistAuthorization: true,
    tryItOutEnabled: true,
    displayOperationId: true,
    displayRequestDuration: true,
    validatorUrl: null,
  },
};

function contentSecurityPolicy(_req: Request, res: Response, next: NextFunction) {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  next();
}

/** `/v1/openapi.json` (the committed document) and `/v1/docs`, a reference whose assets are local, so it works offline. */
export function docsRoutes(): Router {
  const text = readFileSync(OPENAPI_PATH, 'utf8');
  const router = Router();
  router.get(OPENAPI_URL, (_req, res) => void res.type('application/json').send(text));
  // swagger-ui-express takes the page options twice: serveFiles writes swagger-ui-init.js, setup the HTML.
  router.use(
    '/v1/docs',
    contentSecurityPolicy,
    swaggerUi.serveFiles(undefined, uiOptions),
    swaggerUi.setup(undefined, uiOptions),
  );
  return router;
}
