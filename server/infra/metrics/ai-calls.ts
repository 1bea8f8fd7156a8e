import { Counter, Histogram } from 'prom-client';
import type { AiProvider } from '../ai/provider.ts';
import { registry } from './registry.ts';

const calls = new Counter({
  name: 'intake_ai_calls_total',
  help: 'Calls to an AI provider, by provider (openai, local) and operation (analyze: moderation and category; summarize: weekly insights).',
  labelNames: ['provider', 'operation'] as const,
  registers: [registry],
});

const errors = new Counter({
  name: 'intake_ai_errors_total',
  help:
    'AI provider calls that failed, by provider and operation: the OpenAI provider answers from the local one when a call fails ' +
    '(counted here), an error thrown reaches the job (which retries).',
  labelNames: ['provider', 'operation'] as const,
  registers: [registry],
});

const duration = new Histogram({
  name: 'intake_ai_call_duration_seconds',
  help: 'Time an AI provider call took, by provider and operation (a fallback included).',
  labelNames: ['provider', 'operation'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 20, 40],
  registers: [registry],
});

/** Runs one call, counted; a result from another provider than the one asked is its fallback, so an error. */
async function counted<R extends { provider: string }>(
  provider: string,
  operation: string,
  call: () => Promise<R>,
): Promise<R> {
  const labels = { provider, operation };
  calls.inc(labels);
  const end = duration.startTimer(labels);
  try {
    const result = await call();
    if (result.provider !== provider) errors.inc(labels);
    return result;
  } catch (err) {
    errors.inc(labels);
    throw err;
  } finally {
    end();
  }
}

/** The provider as the context holds it: each call counted, timed, and its failures (fallbacks) counted. */
export function countedAi(provider: AiProvider): AiProvider {
  return {
    name: provider.name,
    analyze: (input) => counted(provider.name, 'analyze', () => provider.analyze(input)),
    summarize: (input) => counted(provider.name, 'summarize', () => provider.summarize(input)),
  };
}
