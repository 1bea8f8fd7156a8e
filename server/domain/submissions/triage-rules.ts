import type { z } from 'zod';
import { MAX_TAGS, type Stage, type TriageUpdate } from '../../../contract/triage.ts';
import { validationFailed, type ErrorDetail } from '../shared/errors.ts';

/** The rules of triage that need no database: tags as stored, a tag change, stage lists. */

/** A tag as stored: trimmed and lower-cased. */
export const normalizeTag = (tag: string): string => tag.trim().toLowerCase();

/** Tags as stored, each once, in the order given. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map(normalizeTag))];
}

export type TagChange = { tags: string[]; added: string[]; removed: string[] };

type TagInput = Pick<z.infer<typeof TriageUpdate>, 'tags' | 'add_tags' | 'remove_tags'>;

/**
 * The tags after an update: `tags` replaces them; otherwise `add_tags` are appended (ones already there stay in
 * place) and `remove_tags` taken out. Null when the input names no tags. 400 past MAX_TAGS, naming what was sent.
 */
export function changeTags(current: readonly string[], input: TagInput): TagChange | null {
  if (input.tags === undefined && input.add_tags === undefined && input.remove_tags === undefined) return null;
  if (input.tags !== undefined && (input.add_tags !== undefined || input.remove_tags !== undefined)) {
    throw validationFailed([
      { in: 'body', path: 'tags', message: '`tags` replaces the tags: send it alone, or `add_tags` / `remove_tags`.' },
    ]);
  }
  const removing = new Set(normalizeTags(input.remove_tags ?? []));
  const next =
    input.tags !== undefined
      ? normalizeTags(input.tags)
      : normalizeTags([...current, ...(input.add_tags ?? [])]).filter((t) => !removing.has(t));
  if (next.length > MAX_TAGS) {
    const path = input.tags !== undefined ? 'tags' : 'add_tags';
    throw validationFailed([{ in: 'body', path, message: `A submission has at most ${MAX_TAGS} tags.` }]);
  }
  const before = new Set(current);
  const after = new Set(next);
  return {
    tags: next,
    added: next.filter((t) => !before.has(t)),
    removed: current.filter((t) => !after.has(t)),
  };
}

/** Problems with a form's stage list: keys must be unique. */
export function stageProblems(stages: readonly Stage[]): ErrorDetail[] {
  const seen = new Set<string>();
  const problems: ErrorDetail[] = [];
  stages.forEach((s, i) => {
    if (seen.has(s.key))
      problems.push({ in: 'body', path: `settings.stages.${i}.key`, message: `Stage key "${s.key}" is used twice.` });
    seen.add(s.key);
  });
  return problems;
}

/** The stage keys of `before` that `after` no longer has. */
export function removedStages(before: readonly Stage[], after: readonly Stage[]): string[] {
  const kept = new Set(after.map((s) => s.key));
  return before.map((s) => s.key).filter((k) => !kept.has(k));
}

/** 400 unless `key` is one of the stages, naming `path`. */
export function assertStage(stages: readonly Stage[], key: string, where: ErrorDetail['in'], path: string): void {
  if (!stages.some((s) => s.key === key)) {
    const known = stages.map((s) => s.key).join(', ');
    throw validationFailed([{ in: where, path, message: `Unknown stage "${key}"; the form's stages are ${known}.` }]);
  }
}
