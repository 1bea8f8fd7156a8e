import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';
import { ErrorBody, RateLimitedBody, ValidationErrorBody } from '../../contract/index.ts';
import * as pub from '../../contract/public-endpoint.ts';
import { slowBodyResponse, unavailableResponse } from './shared-responses.ts';
import { jsonContent, schemaOf, type Json } from './schema-repairs.ts';

const htmlPage = (what: string): Json => ({ 'text/html': { schema: { type: 'string', description: what } } });

export const PUBLIC_TAG = {
  name: 'Public endpoint',
  description:
    'The endpoint websites post their forms to (`<form action="https://…/f/{form}" method="post">`, or `fetch`), with no token. ' +
    'Browsers are redirected, JSON clients answered in JSON. It is not an SDK, CLI or MCP operation: visitors post to it, not API clients.',
};

const UploadedFile = extendApi(
  z.string().describe(`A file: a part with a filename, at most ${pub.PUBLIC_POST_LIMITS.fileBytes / 1024 / 1024} MB.`),
  {
    format: 'binary',
  },
);

const MultipartPost = z
  .object(pub.ControlFields)
  .catchall(z.union([pub.FieldText, UploadedFile, z.array(z.union([pub.FieldText, UploadedFile]))]))
  .describe(pub.MULTIPART_RULES);

const EXAMPLE_POST = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Hello!',
  _subject: 'Website enquiry',
  [pub.DEFAULT_HONEYPOT_FIELD]: '',
};

const L = pub.PUBLIC_POST_LIMITS;

function parameter(name: string, where: 'path' | 'header', type: z.ZodTypeAny) {
  const { description, ...schema } = schemaOf(type, false);
  return { name, in: where, required: where === 'path', description, schema };
}

const formParam = () => parameter('form', 'path', pub.PublicFormParam.shape.form);
const bodySchema = (type: z.ZodTypeAny, maxProperties: number) => ({ ...schemaOf(type, false), maxProperties });

const ALLOW_ORIGIN = {
  'Access-Control-Allow-Origin': {
    description: "When the request's `Origin` may post to the form: that origin, or `*` when the form allows any.",
    schema: { type: 'string' },
  },
};

/** The body a website posts, in each media type the endpoint reads. */
function postRequestBody() {
  return {
    required: true,
    description:
      "The form's fields, as a browser posts them (urlencoded, or multipart with files) or as JSON (also `application/*+json`).",
    content: {
      'application/x-www-form-urlencoded': { schema: bodySchema(pub.UrlencodedPost, L.fields), example: EXAMPLE_POST },
      'multipart/form-data': { schema: bodySchema(MultipartPost, L.fields + L.files) },
      'application/json': { schema: bodySchema(pub.JsonPost, L.fields), example: EXAMPLE_POST },
    },
  };
}

/** A stored post's answers: JSON clients get 201, browsers a redirect (spam is answered alike). */
function postStoredResponses() {
  return {
    '201': {
      description:
        'Stored (JSON clients). Spam is answered exactly like this, so a sender cannot tell; a repeated `Idempotency-Key` answers with ' +
        "the first submission's `id`.",
      headers: ALLOW_ORIGIN,
      content: jsonContent(pub.SubmissionAccepted),
    },
    '303': {
      description:
        "Stored (browsers and other non-JSON clients): go to `_next` when it is permitted, else to the form's `redirect_url`, else to " +
        'the built-in thank-you page `/f/{form}/thanks`, which links back to the posting page. Spam and repeated keys are answered alike.',
      headers: {
        Location: { description: 'Where the browser goes next.', schema: { type: 'string', format: 'uri-reference' } },
      },
    },
  };
}

/** A refused post's answers, one per status; nothing is stored. */
function postRefusedResponses() {
  return {
    '400': {
      description:
        'The body or a header cannot be read; nothing was stored. `invalid_json` for malformed JSON; `validation_failed` with `details` ' +
        'for a malformed urlencoded or multipart body, invalid UTF-8, NUL characters or unpaired surrogates, an empty or over-long ' +
        'field name, JSON that is not one object or is nested too deeply, a multipart part without a name, an interrupted upload, or an ' +
        `\`Idempotency-Key\` over ${pub.IDEMPOTENCY_KEY_MAX} characters; \`details\` \`in: "path"\` for a malformed percent-escape in the path.`,
      content: jsonContent(ValidationErrorBody),
    },
    '402': {
      description:
        "The team's plan refuses the post; nothing was stored: its monthly submissions are used up (`quota_exceeded`), it has no file " +
        'uploads (`plan_limit_reached`, answered at the first file part), or the files would pass its storage (`plan_limit_reached`, with `limit`).',
      content: jsonContent(pub.PublicPaymentRequiredBody),
    },
    '403': {
      description:
        "The request's `Origin` is not one of the form's `allowed_origins` (a form without any takes every origin).",
      content: jsonContent(pub.ForbiddenOriginBody),
    },
    '404': {
      description:
        'No published form has this id: unknown, a draft (the message says so), unpublished or deleted. A browser navigating ' +
        '(`Accept` preferring `text/html`) gets an HTML page.',
      content: { ...jsonContent(pub.PublicNotFoundBody), ...htmlPage('A page saying the form takes no submissions.') },
    },
    '413': {
      description:
        'A limit was crossed (too many fields, values or files, a value, file or body too large); nothing was stored. An upload is answered as ' +
        'soon as it crosses the limit, with `Connection: close`.',
      content: jsonContent(pub.PayloadTooLargeBody),
    },
    '415': {
      description: 'The body is not `application/x-www-form-urlencoded`, `multipart/form-data` or JSON.',
      content: jsonContent(pub.UnsupportedMediaTypeBody),
    },
    '422': {
      description:
        'The post is well-formed but the form refuses it; nothing was stored. `validation_failed` with `fields` (per posted field, what ' +
        'to fix) when it breaks the field schema; `captcha_failed` when the CAPTCHA token is missing or refused. JSON clients get JSON, ' +
        'everyone else an HTML page listing what to fix.',
      content: {
        ...jsonContent(pub.PostRefusedBody),
        ...htmlPage('A page listing what to fix, with a link back to the posting page.'),
      },
    },
    '429': {
      description:
        'Too many posts from this address to this form this minute (the flood limit); nothing was stored. Below it, past the rate ' +
        'limit, posts are stored as spam (`rate_limited`) and answered as usual.',
      headers: {
        'Retry-After': {
          description: 'Seconds until the window resets (as `retry_after`).',
          schema: { type: 'integer' },
        },
      },
      content: jsonContent(RateLimitedBody),
    },
    '500': {
      description:
        'The files could not be stored, or another failure on our side; nothing was kept. The `X-Request-Id` header identifies the request.',
      content: jsonContent(ErrorBody),
    },
    '408': slowBodyResponse(),
    '503': unavailableResponse(),
  };
}

/** `POST /f/{form}`. */
function postOperation() {
  return {
    summary: 'Post a submission to a form',
    description: [
      "What a website's form posts to; no token. Checked in this order: the form is published (404), the `Origin` is allowed (403), " +
        'the monthly quota (402) and the flood limit per address (429) — before the body is read — then an `Idempotency-Key` seen in the last ' +
        "24 hours (answered as its first submission), the body and its limits (400, 413, 415), the plan's uploads (402), the field schema " +
        '(422), the file storage left (402), the CAPTCHA (422), and the spam filters. Spam is stored and answered exactly like a clean post.',
      `Limits: ${pub.LIMITS_TEXT} Past a limit the post is refused with 413 (400 for a field name over ${L.fieldName} characters or JSON ` +
        'nested too deeply), never truncated, and nothing is stored.',
      'The answer depends on the client: a JSON body, or an `Accept` header preferring `application/json`, gets `201 { ok, id }` and JSON ' +
        'errors; anyone else (a browser posting a form) is redirected (303), and shown an HTML page for a form that takes no posts (404) ' +
        'or a post the form refuses (422). CORS: a post from an allowed origin is answered with `Access-Control-Allow-Origin`.',
    ].join('\n\n'),
    operationId: 'submitForm',
    tags: [PUBLIC_TAG.name],
    security: [],
    parameters: [formParam(), parameter('Idempotency-Key', 'header', pub.IdempotencyKey)],
    requestBody: postRequestBody(),
    responses: { ...postStoredResponses(), ...postRefusedResponses() },
  };
}

/** `OPTIONS /f/{form}`, the CORS preflight. */
function preflightOperation() {
  return {
    summary: 'CORS preflight for a form',
    description:
      'What a browser asks before a cross-origin post it cannot send plainly (JSON, an `Idempotency-Key`). When the `Origin` may post to ' +
      'the form (any origin when its `allowed_origins` is empty), the 204 carries the `Access-Control-Allow-*` headers; otherwise it has ' +
      'none, and the browser does not send the post.',
    operationId: 'preflightForm',
    tags: [PUBLIC_TAG.name],
    security: [],
    parameters: [formParam()],
    responses: {
      '204': {
        description: 'No content; the CORS headers when the origin is allowed.',
        headers: {
          ...ALLOW_ORIGIN,
          'Access-Control-Allow-Methods': { description: '`POST, OPTIONS`.', schema: { type: 'string' } },
          'Access-Control-Allow-Headers': {
            description: '`Content-Type, Accept, Idempotency-Key, X-Requested-With`.',
            schema: { type: 'string' },
          },
          'Access-Control-Max-Age': {
            description: 'Seconds the browser may keep the answer (600).',
            schema: { type: 'integer' },
          },
        },
      },
      '400': {
        description: '`validation_failed`, `details` `in: "path"`: a malformed percent-escape in the path.',
        content: jsonContent(ValidationErrorBody),
      },
      '404': { description: 'No published form has this id.', content: jsonContent(pub.PublicNotFoundBody) },
    },
  };
}

/**
 * `POST /f/{form}` and its CORS preflight, described from the zod schemas of contract/public-endpoint.ts
 * (the endpoint itself is server/transports/public/router.ts; a test posts to it and checks every answer against this).
 */
export function publicEndpointPaths(): Json {
  // Websites post to the root, not under the API's prefixes (`/v1`, `/api/v1`).
  const servers = [{ url: '/', description: 'This Intake server (the endpoint has no `/api` alias).' }];
  return { '/f/{form}': { servers, options: preflightOperation(), post: postOperation() } };
}
