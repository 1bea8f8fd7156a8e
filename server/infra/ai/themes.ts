import { createRequire } from 'node:module';

/**
 * Local theme extraction: short phrases a week's submissions use, with how many use each. Phrases are runs of
 * one to three words between stop-words (the RAKE idea). No stemming and no model: deterministic, any language
 * the stop-word lists cover, linear in the text.
 */

const require = createRequire(import.meta.url);
const lists = require('stopword') as Record<string, unknown>;

/** Stop-words of the languages forms are most often written in, merged (a word is a stop-word in any of them). */
const LANGUAGES = ['eng', 'fra', 'deu', 'spa', 'ita', 'por', 'nld', 'swe', 'dan', 'nob', 'pol'];
const FORM_WORDS = [
  'hello',
  'hi',
  'dear',
  'thanks',
  'thank',
  'please',
  'regards',
  'best',
  'kind',
  'cheers',
  'team',
  'email',
  'message',
  'name',
  'phone',
];
const STOP = new Set<string>(
  [...LANGUAGES.flatMap((l) => (Array.isArray(lists[l]) ? (lists[l] as string[]) : [])), ...FORM_WORDS].map((w) =>
    w.toLowerCase(),
  ),
);

export type Theme = { label: string; count: number };

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;
const MAX_WORDS = 3;

/** The distinct candidate phrases of one text, lower-cased, each with its first spelling as written. */
function phrases(text: string): Map<string, string> {
  const out = new Map<string, string>();
  // Sentences and clauses end runs too: a phrase never spans punctuation.
  for (const clause of text.split(/[.,;:!?()[\]{}"“”«»\n\r\t/\\|]+/u)) {
    let run: string[] = [];
    const flush = () => {
      for (let i = 0; i < run.length; i += 1) {
        for (let n = 1; n <= MAX_WORDS && i + n <= run.length; n += 1) {
          const written = run.slice(i, i + n).join(' ');
          const key = written.toLowerCase();
          if (!out.has(key)) out.set(key, written);
        }
      }
      run = [];
    };
    for (const [word] of clause.matchAll(WORD)) {
      const w = word.replace(/['’-]+$/u, '');
      if (w.length < 3 || STOP.has(w.toLowerCase()) || /^\p{N}+$/u.test(w)) flush();
      else run.push(w);
    }
    flush();
  }
  return out;
}

/** A label as people wrote it most often ("CSV export", not "csv export"), first letter capitalised. */
function label(spellings: Map<string, number>): string {
  let best = '';
  let most = 0;
  for (const [s, n] of spellings) if (n > most || (n === most && s < best)) [best, most] = [s, n];
  return best.charAt(0).toUpperCase() + best.slice(1);
}

const overlaps = (a: string, b: string) => ` ${a} `.includes(` ${b} `) || ` ${b} `.includes(` ${a} `);

/**
 * The `max` themes of `texts`: phrases used by at least two submissions (1 % in a large week), longer phrases
 * weighted up, overlaps dropped; ties break alphabetically, so the same input gives the same themes.
 */
export function extractThemes(texts: string[], max = 8): Theme[] {
  const counts = new Map<string, number>();
  const spellings = new Map<string, Map<string, number>>();
  for (const text of texts) {
    for (const [p, written] of phrases(text)) {
      counts.set(p, (counts.get(p) ?? 0) + 1);
      let forms = spellings.get(p);
      if (!forms) spellings.set(p, (forms = new Map()));
      forms.set(written, (forms.get(written) ?? 0) + 1);
    }
  }
  const floor = Math.max(2, Math.ceil(texts.length * 0.01));
  const weight = (p: string, n: number) => n * (1 + 0.5 * (p.split(' ').length - 1));
  const ranked = [...counts]
    .filter(([, n]) => n >= floor)
    .sort(([a, x], [b, y]) => weight(b, y) - weight(a, x) || y - x || (a < b ? -1 : a > b ? 1 : 0));
  const chosen: Array<[string, number]> = [];
  for (const [p, n] of ranked) {
    if (chosen.length >= max) break;
    if (chosen.some(([q]) => overlaps(p, q))) continue;
    chosen.push([p, n]);
  }
  return chosen.map(([p, n]) => ({ label: label(spellings.get(p)!), count: n }));
}
