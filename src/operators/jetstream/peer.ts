// The NATS client, an optional peer dependency of rxcuda/jetstream, loaded once when the subpath is
// imported: without it, the import fails with an error that says what to install (a static import
// would fail with Node's bare ERR_MODULE_NOT_FOUND, naming one file and no remedy).
import type * as JetStreamModule from '@nats-io/jetstream';
import type * as TransportModule from '@nats-io/transport-node';

/** The packages rxcuda/jetstream needs beside rxcuda, with the major version it is tested with. */
export const PEER_DEPENDENCIES = ['@nats-io/jetstream@3', '@nats-io/transport-node@3'] as const;

/** Whether `error` says that the package `name` itself (not a file inside it) was not found. */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(`'${name}'`);
}

async function load<T>(name: string, importer: () => Promise<T>): Promise<T | { missing: string; error: unknown }> {
  try {
    return await importer();
  } catch (error) {
    if (isMissing(error, name)) return { missing: name, error };
    throw error;
  }
}

const [jetstreamModule, transportModule] = await Promise.all([
  load('@nats-io/jetstream', () => import('@nats-io/jetstream')),
  load('@nats-io/transport-node', () => import('@nats-io/transport-node')),
]);
const missing = [jetstreamModule, transportModule].filter((m): m is { missing: string; error: unknown } => 'missing' in m);
if (missing.length > 0)
  throw new Error(
    `rxcuda/jetstream needs the NATS client, which rxcuda leaves to your project (optional peer dependencies): ` +
      `\`npm install ${PEER_DEPENDENCIES.join(' ')}\` (not found: ${missing.map((m) => m.missing).join(', ')})`,
    { cause: missing[0]!.error },
  );

/** The parts of the NATS client rxcuda/jetstream calls. */
export const nats = {
  jetstream: (jetstreamModule as typeof JetStreamModule).jetstream,
  jetstreamManager: (jetstreamModule as typeof JetStreamModule).jetstreamManager,
  AckPolicy: (jetstreamModule as typeof JetStreamModule).AckPolicy,
  connect: (transportModule as typeof TransportModule).connect,
  headers: (transportModule as typeof TransportModule).headers,
};
