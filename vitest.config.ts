import { configDefaults, defineConfig } from 'vitest/config';

const jetstream = 'test/jetstream/**/*.test.ts';
const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  // Lifetime tests collect garbage on purpose.
  execArgv: ['--expose-gc'],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'rxcuda',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, jetstream],
          globalSetup: ['test/support/announce.ts'],
        },
      },
      // The JetStream tests start nats-server nodes and worker processes, and wait on the clock
      // (ack_wait, idle, heartbeats): one file at a time, after the others, so that on a machine
      // of 2 cores they starve neither each other nor the rest. In parallel they took as long.
      { test: { ...shared, name: 'jetstream', include: [jetstream], fileParallelism: false } },
    ],
  },
});
