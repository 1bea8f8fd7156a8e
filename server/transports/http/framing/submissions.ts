import type { ExportStream } from '../../../domain/submissions/export.ts';
import type { Framing } from './framing.ts';

/** The export as a download, and a file as a redirect to its signed storage URL. */
export const submissionsFraming: Record<'exportSubmissions' | 'downloadSubmissionFile', Framing> = {
  exportSubmissions: (ctx, result, { req, res }) => {
    const exported = result.body as ExportStream;
    res.setHeader('Content-Type', exported.contentType);
    res.setHeader('Content-Disposition', `attachment; filename="${exported.filename}"`);
    // A client that goes away ends the export: a chunk being read is cut, and its export slot is freed.
    res.on('close', () => {
      if (!res.writableFinished) exported.stream.destroy();
    });
    exported.stream.on('error', (err) => {
      ctx.log.error({ err, formId: req.params.form }, 'export failed mid-stream');
      res.destroy(err);
    });
    return { status: 200, body: exported.stream };
  },
  downloadSubmissionFile: (_ctx, result, { res }) => {
    res.setHeader('Location', (result.body as { url: string }).url);
    return { status: 302, body: undefined };
  },
};
