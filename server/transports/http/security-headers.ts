import type { NextFunction, Request, Response } from 'express';

/**
 * Headers every answer carries: nothing to sniff or frame, and a JSON answer opened as a page runs nothing.
 * API and MCP answers are private and may carry secrets or signed URLs, so no cache keeps them.
 */
const DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The API reference and its document are public and the same for everyone: they may be cached. */
const PUBLIC_API_PATHS = new Set(['/v1/docs', '/v1/openapi.json']);

function isPrivateApi(path: string): boolean {
  if (path === '/mcp' || path.startsWith('/mcp/')) return true;
  return path.startsWith('/v1/') && !PUBLIC_API_PATHS.has(path) && !path.startsWith('/v1/docs/');
}

export function securityHeaders(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', DEFAULT_CSP);
  if (isPrivateApi(req.path)) res.setHeader('Cache-Control', 'no-store');
  next();
}
