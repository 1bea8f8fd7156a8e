import { readFileSync } from 'node:fs';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';

const OPENAPI_PATH = new URL('../../openapi.json', import.meta.url);

/**
 * `/v1/openapi.json` serves the committed document (a test keeps it equal to the contract) and
 * `/v1/docs` an interactive reference whose assets come from the local swagger-ui-dist package,
 * so it works with no internet.
 */
export function docsRoutes(): Router {
  const text = readFileSync(OPENAPI_PATH, 'utf8');
  const doc = JSON.parse(text) as Record<string, unknown>;
  const router = Router();
  router.get('/v1/openapi.json', (_req, res) => void res.type('application/json').send(text));
  router.use(
    '/v1/docs',
    swaggerUi.serveFiles(doc),
    swaggerUi.setup(doc, {
      customSiteTitle: 'Intake API reference',
      swaggerOptions: { persistAuthorization: true, tryItOutEnabled: true, displayOperationId: true, validatorUrl: null },
    }),
  );
  return router;
}
