import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { privateDir, privatePath, privateTree } from './private-files.ts';

export type EmbeddedS3 = { url: string; stop(): Promise<void> };

/**
 * The development default: s3rver serving `<dataDir>/s3` (no signature checks, no multipart: production uses
 * STORAGE_URL). Loaded on first start only. A given `port` lets a stopped server come back where clients expect it.
 */
export async function startEmbeddedS3(
  dataDir: string,
  bucket: string,
  opts: { port?: number } = {},
): Promise<EmbeddedS3> {
  const { default: S3rver } = await import('s3rver');
  const directory = path.join(dataDir, 's3');
  privateDir(directory);
  const server = new S3rver({
    address: '127.0.0.1',
    port: opts.port ?? 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  keepPrivate((server as unknown as { store: FilesystemStore }).store, directory);
  const address = (await server.run()) as AddressInfo;
  privateTree(directory); // what the bucket's set-up wrote
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

type FilesystemStore = Record<string, unknown> & {
  getResourcePath(bucket: string, key: string, resource: string): string;
  getBucketPath(bucket: string): string;
};

/** s3rver writes with the process's umask and takes no mode: after each store write, make what it wrote private. */
function keepPrivate(store: FilesystemStore, root: string): void {
  const objectDir = (bucket: string, key: string) => path.dirname(store.getResourcePath(bucket, key, 'object'));
  const written: Record<string, (...args: never[]) => string> = {
    putObject: (o: { bucket: string; key: string }) => objectDir(o.bucket, o.key),
    copyObject: (_sb: string, _sk: string, bucket: string, key: string) => objectDir(bucket, key),
    putMetadata: (bucket: string, key: string) => objectDir(bucket, key),
    getMetadata: (bucket: string, key: string) => objectDir(bucket, key), // writes a missing .md5 file
    putSubresource: (bucket: string, key?: string) => (key ? objectDir(bucket, key) : store.getBucketPath(bucket)),
    putBucket: (bucket: string) => store.getBucketPath(bucket),
  };
  for (const [method, where] of Object.entries(written)) {
    const original = store[method] as (...args: unknown[]) => Promise<unknown>;
    store[method] = async (...args: never[]) => {
      const result = await original.apply(store, args);
      privatePath(root, where(...args));
      return result;
    };
  }
  // Multipart uploads (which s3rver answers NotImplemented to the minio client in practice) write elsewhere.
  for (const method of ['initiateUpload', 'putPart', 'putObjectMultipart']) {
    const original = store[method] as (...args: unknown[]) => Promise<unknown>;
    store[method] = async (...args: unknown[]) => {
      const result = await original.apply(store, args);
      privateTree(root);
      return result;
    };
  }
}
