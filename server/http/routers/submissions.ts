import { initServer } from '@ts-rest/express';
import { submissionsContract } from '../../../contract/submissions.ts';
import type { AppContext } from '../../context.ts';
import { exportSubmissions } from '../../domain/submission-export.ts';
import * as submissions from '../../domain/submissions.ts';
import { callerOf } from '../request-context.ts';

export function submissionsRouter(ctx: AppContext) {
  return initServer().router(submissionsContract, {
    listSubmissions: async ({ res, params, query }) => ({
      status: 200,
      body: await submissions.listSubmissions(ctx, callerOf(res), params.form, query),
    }),
    bulkSubmissions: async ({ res, params, body }) => ({
      status: 200,
      body: await submissions.bulkSubmissions(ctx, callerOf(res), params.form, body),
    }),
    exportSubmissions: async ({ res, params, query }) => {
      const exported = await exportSubmissions(ctx, callerOf(res), params.form, query);
      res.setHeader('Content-Type', exported.contentType);
      res.setHeader('Content-Disposition', `attachment; filename="${exported.filename}"`);
      // A client that goes away ends the export: a chunk being read is cut, and its export slot is freed.
      res.on('close', () => {
        if (!res.writableFinished) exported.stream.destroy();
      });
      exported.stream.on('error', (err) => {
        ctx.log.error({ err, formId: params.form }, 'export failed mid-stream');
        res.destroy(err);
      });
      return { status: 200, body: exported.stream as unknown as string };
    },
    getSubmission: async ({ res, params }) => ({
      status: 200,
      body: { data: await submissions.getSubmission(ctx, callerOf(res), params.form, params.submission) },
    }),
    updateSubmission: async ({ res, params, body }) => ({
      status: 200,
      body: { data: await submissions.updateSubmission(ctx, callerOf(res), params.form, params.submission, body) },
    }),
    deleteSubmission: async ({ res, params }) => {
      await submissions.deleteSubmission(ctx, callerOf(res), params.form, params.submission);
      return { status: 200, body: { ok: true } };
    },
    downloadSubmissionFile: async ({ res, params }) => {
      const url = await submissions.fileDownloadUrl(ctx, callerOf(res), params.form, params.submission, params.file);
      res.setHeader('Location', url);
      return { status: 302, body: undefined };
    },
  });
}
