import type { submissionsContract } from '../../contract/submissions.ts';
import { exportSubmissions, type ExportStream } from '../domain/submissions/export.ts';
import * as submissions from '../domain/submissions/submissions.ts';
import type { Operation, OperationInput, OperationResult, OperationsOf } from './types.ts';
import { submitFromServer } from '../domain/ingest/server-submit.ts';
import type { Upload } from '../domain/ingest/post.ts';

type Routes = typeof submissionsContract;

/**
 * Two answers are not JSON bodies: the export is a stream with its file name and type, and a file is the
 * signed storage URL to send the caller to. The operation returns them as data; REST frames them
 * (Content-Disposition, a 302 with Location), MCP inlines the export's rows and hands over the URL.
 */
/** A submission answered with its `ETag` header. */
type WithEtag<K extends keyof Routes> = OperationResult<Routes[K]> & { headers?: { etag: string } };

type Special = {
  createSubmission: Operation<
    Routes['createSubmission'],
    OperationInput<Routes['createSubmission']> & { upload?: Upload },
    OperationResult<Routes['createSubmission']>
  >;
  exportSubmissions: Operation<
    Routes['exportSubmissions'],
    OperationInput<Routes['exportSubmissions']>,
    { status: 200; body: ExportStream }
  >;
  getSubmission: Operation<Routes['getSubmission'], OperationInput<Routes['getSubmission']>, WithEtag<'getSubmission'>>;
  updateSubmission: Operation<
    Routes['updateSubmission'],
    OperationInput<Routes['updateSubmission']>,
    WithEtag<'updateSubmission'>
  >;
  downloadSubmissionFile: Operation<
    Routes['downloadSubmissionFile'],
    OperationInput<Routes['downloadSubmissionFile']>,
    { status: 302; body: { url: string } }
  >;
};

export const submissionsOperations = {
  createSubmission: async (ctx, caller, { params, body, headers, upload }) => ({
    status: 201,
    body: {
      data: await submitFromServer(ctx, caller, params.form, {
        ...(upload ? { upload } : { body }),
        idempotencyKey: headers['idempotency-key'] ?? null,
      }),
    },
  }),
  listSubmissions: async (ctx, caller, { params, query }) => ({
    status: 200,
    body: await submissions.listSubmissions(ctx, caller, params.form, query),
  }),
  bulkSubmissions: async (ctx, caller, { params, body }) => ({
    status: 200,
    body: await submissions.bulkSubmissions(ctx, caller, params.form, body),
  }),
  exportSubmissions: async (ctx, caller, { params, query }) => ({
    status: 200,
    body: await exportSubmissions(ctx, caller, params.form, query),
  }),
  getSubmission: async (ctx, caller, { params }) => {
    const data = await submissions.getSubmission(ctx, caller, params.form, params.submission);
    return { status: 200, body: { data }, headers: { etag: data.etag } };
  },
  updateSubmission: async (ctx, caller, { params, body, headers }) => {
    const data = await submissions.updateSubmission(
      ctx,
      caller,
      params.form,
      params.submission,
      body,
      headers['if-match'],
    );
    return { status: 200, body: { data }, headers: { etag: data.etag } };
  },
  deleteSubmission: async (ctx, caller, { params }) => {
    await submissions.deleteSubmission(ctx, caller, params.form, params.submission);
    return { status: 200, body: { ok: true } };
  },
  downloadSubmissionFile: async (ctx, caller, { params }) => ({
    status: 302,
    body: { url: await submissions.fileDownloadUrl(ctx, caller, params.form, params.submission, params.file) },
  }),
} satisfies Omit<OperationsOf<Routes>, keyof Special> & Special;
