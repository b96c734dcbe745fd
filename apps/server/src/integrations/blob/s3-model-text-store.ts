import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { BlobStoreConfig } from '../../config.ts';
import type { ModelTextObject, ModelTextStore } from '../../kernel/ports.ts';

/** A request the store does not answer in this long fails (and the batch is a 503). */
const REQUEST_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 3_000;
/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1000;

/**
 * Model text in an S3 bucket, one object per model call under
 * `<prefix><org id>/<UTC day>/<event id, base64url>.<sha-256>`. The day in the key is what
 * retention deletes by; the hash makes a key name one content, so an event id sent again with
 * other text never overwrites the text accepted first (docs/decisions/scale-out.md#model-text-in-object-storage).
 */
export class S3ModelTextStore implements ModelTextStore {
  private readonly s3: S3Client;
  private bucketReady: Promise<void> | null = null;

  constructor(private readonly config: BlobStoreConfig) {
    this.s3 = new S3Client({
      region: config.region,
      ...(config.endpoint === null ? {} : { endpoint: config.endpoint, forcePathStyle: true }),
      ...(config.credentials === null ? {} : { credentials: config.credentials }),
      maxAttempts: 2,
      requestHandler: {
        connectionTimeout: CONNECT_TIMEOUT_MS,
        requestTimeout: REQUEST_TIMEOUT_MS,
      },
    });
  }

  private dayPrefix(orgId: string, day: string): string {
    return `${this.config.prefix}${orgId}/${day}/`;
  }

  async put(object: ModelTextObject, body: Uint8Array): Promise<string> {
    await this.ensureBucket();
    const id = Buffer.from(object.eventId, 'utf8').toString('base64url');
    const key = `${this.dayPrefix(object.orgId, object.day)}${id}.${object.sha256}`;
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: key,
        Body: body,
        ContentType: 'application/octet-stream',
      }),
    );
    return key;
  }

  async get(key: string): Promise<Uint8Array> {
    const got = await this.s3.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: key }));
    if (got.Body === undefined) throw new Error(`the store returned no body for ${key}`);
    return got.Body.transformToByteArray();
  }

  async days(orgId: string): Promise<string[]> {
    const under = `${this.config.prefix}${orgId}/`;
    const days: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.config.bucket,
          Prefix: under,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      );
      for (const p of page.CommonPrefixes ?? [])
        if (p.Prefix !== undefined) days.push(p.Prefix.slice(under.length, -1));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return days.sort();
  }

  async deleteDay(orgId: string, day: string): Promise<number> {
    let deleted = 0;
    // Listed afresh after each delete: the keys left are always the first page.
    for (;;) {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.config.bucket,
          Prefix: this.dayPrefix(orgId, day),
          MaxKeys: DELETE_BATCH,
        }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [o.Key]));
      if (keys.length === 0) return deleted;
      const result = await this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.config.bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = result.Errors ?? [];
      if (failed.length > 0)
        throw new Error(`the store did not delete ${failed[0]?.Key}: ${failed[0]?.Message}`);
      deleted += keys.length;
    }
  }

  /** The bucket, created once when missing; a failed look is tried again by the next call. */
  private ensureBucket(): Promise<void> {
    this.bucketReady ??= this.createIfMissing().catch((error) => {
      this.bucketReady = null;
      throw error;
    });
    return this.bucketReady;
  }

  private async createIfMissing(): Promise<void> {
    const Bucket = this.config.bucket;
    try {
      await this.s3.send(new HeadBucketCommand({ Bucket }));
      return;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
    const onAws = this.config.endpoint === null && this.config.region !== 'us-east-1';
    try {
      await this.s3.send(
        new CreateBucketCommand({
          Bucket,
          ...(onAws
            ? { CreateBucketConfiguration: { LocationConstraint: this.config.region as never } }
            : {}),
        }),
      );
    } catch (error) {
      // Another process created it first.
      if ((error as { name?: string }).name !== 'BucketAlreadyOwnedByYou') throw error;
    }
  }

  close(): void {
    this.s3.destroy();
  }
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof S3ServiceException) return error.$metadata.httpStatusCode;
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}
