import { isHttpUrl } from '../../../contract/common.ts';
import type { FormSettings } from '../../../contract/forms.ts';

export function originOf(url: string): string | null {
  return isHttpUrl(url) ? new URL(url).origin : null;
}

export function isAllowedOrigin(settings: FormSettings, origin: string): boolean {
  if (settings.allowed_origins.length === 0) return true;
  return settings.allowed_origins.some((o) => o.toLowerCase() === origin.toLowerCase());
}

/** The page a browser posted from: its `Origin`, else the origin of its `Referer`. */
export function postingOrigin(client: { origin: string | null; referrer: string | null }): string | null {
  return (
    (client.origin && client.origin !== 'null' ? originOf(client.origin) : null) ??
    (client.referrer ? originOf(client.referrer) : null)
  );
}

/**
 * Where a browser goes after posting: `_next` when its origin is the posting page's, the redirect host's or an
 * allowed one (anywhere else would be an open redirect); else the form's redirect_url, else null.
 */
export function redirectTarget(
  settings: FormSettings,
  next: string | null,
  fromOrigin: string | null = null,
): string | null {
  if (next) {
    const nextOrigin = originOf(next);
    const redirectOrigin = settings.redirect_url ? originOf(settings.redirect_url) : null;
    const allowed = settings.allowed_origins.map((o) => o.toLowerCase());
    if (
      nextOrigin &&
      (nextOrigin === fromOrigin || nextOrigin === redirectOrigin || allowed.includes(nextOrigin.toLowerCase()))
    )
      return next;
  }
  return settings.redirect_url;
}

/** The thank-you page links back only to the page the post came from. */
export function backLink(referrer: string | null, fromOrigin: string | null): string | null {
  return referrer && fromOrigin && originOf(referrer) === fromOrigin ? referrer : null;
}
