import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `make test-citus` (scripts/test-citus.sh): the test files that run on a Citus cluster, with DATABASE_URL at
 * its coordinator: test/citus/ (each request path refusing multi-shard statements, a rebalance) and the
 * integration tests whose every statement runs there (docs/scaling.md). A file joins once it passes there.
 */
export default defineConfig({
  test: {
    ...base.test,
    include: [
      'test/citus/**/*.test.ts',
      'test/platform/tenant-keys.test.ts',
      'test/platform/unseen-rows.test.ts',
      'test/accounts/*.test.ts',
      'test/forms/*.test.ts',
      'test/ingest/admission.test.ts',
      'test/ingest/ingest.test.ts',
      'test/ingest/server-submit.test.ts',
      'test/ingest/uploads.test.ts',
      'test/lifecycle/*.test.ts',
      'test/mcp/mcp.test.ts',
      'test/notifications/*.test.ts',
      'test/rules/conditions.test.ts',
      'test/rules/rules-api.test.ts',
      'test/submissions/bulk-skipped.test.ts',
      'test/submissions/processing.test.ts',
      'test/submissions/stream.test.ts',
      'test/submissions/stream-positions.test.ts',
      'test/submissions/submissions.test.ts',
      'test/submissions/triage.test.ts',
      'test/submissions/triage-events.test.ts',
      'test/submissions/triage-notes.test.ts',
      'test/webhooks/events.test.ts',
      'test/webhooks/webhooks.test.ts',
    ],
  },
});
