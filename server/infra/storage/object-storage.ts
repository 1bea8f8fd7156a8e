import type { Readable } from 'node:stream';
import { Client } from 'minio';
import { isUnreachable } from '../unreachable-errors.ts';

/** Object storage over the minio client: MinIO, AWS S3, R2, or the embedded s3rver. */
export type ObjectStorage = {
  bucket: string;
  put(key: string, body: Readable | Buffer, meta: { contentType: string; size?: number }): Promise<void>;
  get(key: string): Promise<Readable>;
  remove(keys: string[]): Promise<void>;
  presignedGet(key: string, seconds: number, downloadName?: string): Promise<string>;
  ping(): Promise<void>;
};

/**
 * An RFC 5987 ext-value for `filename*`: encodeURIComponent leaves ' ( ) * unescaped, which are not
 * attr-chars (a bare ' even ends the language part), so a name like "O'Brien (1).pdf" would be cut.
 */
function rfc5987(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * How long a good answer from storage vouches for it. Signing a URL asks storage nothing, so a link is minted
 * only after a bucket HEAD answered within this window; any failure voids it.
 */
const REACHABLE_FOR_MS = 1_000;

/** STORAGE_URL is `http(s)://ACCESS_KEY:SECRET@host:port` (`?region=` optional). */
export function connectStorage(storageUrl: string, bucket: string): ObjectStorage {
  const url = new URL(storageUrl);
  const client = new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    useSSL: url.protocol === 'https:',
    accessKey: decodeURIComponent(url.username),
    secretKey: decodeURIComponent(url.password),
    region: url.searchParams.get('region') ?? 'us-east-1',
    pathStyle: true,
  });
  let answeredAt = 0;
  let probe: Promise<void> | null = null;
  /** Runs a request to storage, keeping track of whether storage answers. */
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      const result = await fn();
      answeredAt = Date.now();
      return result;
    } catch (err) {
      if (isUnreachable(err)) answeredAt = 0;
      throw err;
    }
  };
  const reachable = async () => {
    if (Date.now() - answeredAt < REACHABLE_FOR_MS) return;
    probe ??= call(() => client.bucketExists(bucket)).then(
      () => void (probe = null),
      (err: unknown) => {
        probe = null;
        throw err;
      },
    );
    await probe;
  };
  return {
    bucket,
    async put(key, body, meta) {
      await call(() => client.putObject(bucket, key, body, meta.size, { 'Content-Type': meta.contentType }));
    },
    get: (key) => call(() => client.getObject(bucket, key)),
    async remove(keys) {
      if (keys.length) await call(() => client.removeObjects(bucket, keys));
    },
    async presignedGet(key, seconds, downloadName) {
      await reachable();
      const headers: Record<string, string> = {};
      if (downloadName) {
        headers['response-content-disposition'] = `attachment; filename*=UTF-8''${rfc5987(downloadName)}`;
      }
      return client.presignedGetObject(bucket, key, seconds, headers);
    },
    async ping() {
      if (!(await call(() => client.bucketExists(bucket)))) await client.makeBucket(bucket);
    },
  };
}
