import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['engine/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'tools/**/*.test.ts'],
    testTimeout: 60_000,
    // Shared fixtures (a tiny pair analysed end to end, curvature stage included) are built in beforeAll.
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
