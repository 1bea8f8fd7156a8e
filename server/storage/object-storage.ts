import type { Readable } from 'node:stream';
import { Client } from 'minio';

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
  return {
    bucket,
    async put(key, body, meta) {
      await client.putObject(bucket, key, body, meta.size, { 'Content-Type': meta.contentType });
    },
    get: (key) => client.getObject(bucket, key),
    async remove(keys) {
      if (keys.length) await client.removeObjects(bucket, keys);
    },
    presignedGet(key, seconds, downloadName) {
      const headers: Record<string, string> = {};
      if (downloadName) {
        headers['response-content-disposition'] = `attachment; filename*=UTF-8''${rfc5987(downloadName)}`;
      }
      return client.presignedGetObject(bucket, key, seconds, headers);
    },
    async ping() {
      if (!(await client.bucketExists(bucket))) await client.makeBucket(bucket);
    },
  };
}
