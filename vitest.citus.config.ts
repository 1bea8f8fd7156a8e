import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `make test-citus` (scripts/test-citus.sh): the test files that run on a Citus cluster, with DATABASE_URL at
 * its coordinator. A file is listed once every statement it exercises runs there (docs/scaling.md).
 */
export default defineConfig({
  test: {
    ...base.test,
    include: ['test/citus/**/*.test.ts', 'test/platform/tenant-keys.test.ts'],
  },
});
