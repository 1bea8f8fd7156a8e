import type { FormSettings } from '../../contract/forms.ts';

function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

export function isAllowedOrigin(settings: FormSettings, origin: string): boolean {
  if (settings.allowed_origins.length === 0) return true;
  return settings.allowed_origins.some((o) => o.toLowerCase() === origin.toLowerCase());
}

/**
 * Where a browser goes after posting: `_next` only when its host is the form's redirect host or one
 * of its allowed origins (an open redirect otherwise), else the form's redirect_url, else null.
 */
export function redirectTarget(settings: FormSettings, next: string | null): string | null {
  if (next) {
    const nextOrigin = originOf(next);
    const redirectOrigin = settings.redirect_url ? originOf(settings.redirect_url) : null;
    const allowed = settings.allowed_origins.map((o) => o.toLowerCase());
    if (nextOrigin && (nextOrigin === redirectOrigin || allowed.includes(nextOrigin.toLowerCase()))) return next;
  }
  return settings.redirect_url;
}
