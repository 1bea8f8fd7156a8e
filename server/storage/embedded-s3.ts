import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import S3rver from 's3rver';

export type EmbeddedS3 = { url: string; stop(): Promise<void> };

/**
 * The development default: s3rver serving buckets from `<dataDir>/s3`. It enforces URL expiry but not
 * signatures and has no multipart upload, so it is for development only; production uses STORAGE_URL.
 * `port` 0 (the default) takes a free one; a given port lets a stopped server come back where its clients
 * expect it.
 */
export async function startEmbeddedS3(dataDir: string, bucket: string, opts: { port?: number } = {}): Promise<EmbeddedS3> {
  const directory = path.join(dataDir, 's3');
  fs.mkdirSync(directory, { recursive: true });
  const server = new S3rver({ address: '127.0.0.1', port: opts.port ?? 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const address = (await server.run()) as AddressInfo;
  return {
    url: `http://S3RVER:S3RVER@127.0.0.1:${address.port}`,
    async stop() {
      const closed = server.close() as Promise<void>;
      // Clients keep connections alive: without this, close() would wait for each to go idle and time out.
      (server as unknown as { httpServer?: http.Server }).httpServer?.closeAllConnections();
      await closed;
    },
  };
}
