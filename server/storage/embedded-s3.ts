import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import S3rver from 's3rver';

export type EmbeddedS3 = { url: string; stop(): Promise<void> };

/**
 * The development default: s3rver serving buckets from `<dataDir>/s3`. It enforces URL expiry but not
 * signatures and has no multipart upload, so it is for development only; production uses STORAGE_URL.
 */
export async function startEmbeddedS3(dataDir: string, bucket: string): Promise<EmbeddedS3> {
  const directory = path.join(dataDir, 's3');
  fs.mkdirSync(directory, { recursive: true });
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const address = (await server.run()) as AddressInfo;
  return {
    url: `http://S3RVER:S3RVER@127.0.0.1:${address.port}`,
    stop: () => server.close() as Promise<void>,
  };
}
