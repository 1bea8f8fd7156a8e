import { validationFailed } from '../shared/errors.ts';

/** The most words a search takes (each is a prefix all results must have). */
const MAX_WORDS = 8;

/**
 * A search box's text for `q=`: null when blank; 400 when it has no word to look for or too many. The
 * words are read by Postgres's own parser (submission_search_query), the way the stored text was.
 */
export function searchText(q: string | undefined): string | undefined {
  const text = q?.trim();
  if (!text) return undefined;
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (!words.length)
    throw validationFailed([{ in: 'query', path: 'q', message: 'Search for at least one word (letters or digits).' }]);
  if (words.length > MAX_WORDS)
    throw validationFailed([{ in: 'query', path: 'q', message: `Search for at most ${MAX_WORDS} words.` }]);
  return text;
}
