/**
 * Types of the Intake REST API for plain-fetch users, generated from openapi.json by openapi-typescript.
 * Do not edit: run `node sdk/generate-types.ts`. A test fails when this file drifts from openapi.json.
 */

export interface paths {
    "/f/{form}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a submission to a form
         * @description What a website's form posts to; no token. Checked in this order: the form is published (404), the `Origin` is allowed (403), the monthly quota (402) and the flood limit per address (429) — before the body is read — then an `Idempotency-Key` seen in the last 24 hours (answered as its first submission), the body and its limits (400, 413, 415), the plan's uploads (402), the field schema (422), the file storage left (402), the CAPTCHA (422), and the spam filters. Spam is stored and answered exactly like a clean post.
         *
         *     Limits: at most 200 fields, names of at most 64 characters, values of at most 64 KB; at most 2000 values in all, in any kind of body (a name sent more than once counts each value; JSON counts every list item and nested value); urlencoded and JSON bodies of at most 1 MB; multipart: at most 10 files of at most 10 MB each (when the plan includes uploads, within its own file limit); JSON nested at most 5 levels. Past a limit the post is refused with 413 (400 for a field name over 64 characters or JSON nested too deeply), never truncated, and nothing is stored.
         *
         *     The answer depends on the client: a JSON body, or an `Accept` header preferring `application/json`, gets `201 { ok, id }` and JSON errors; anyone else (a browser posting a form) is redirected (303), and shown an HTML page for a form that takes no posts (404) or a post the form refuses (422). CORS: a post from an allowed origin is answered with `Access-Control-Allow-Origin`.
         */
        post: operations["submitForm"];
        delete?: never;
        /**
         * CORS preflight for a form
         * @description What a browser asks before a cross-origin post it cannot send plainly (JSON, an `Idempotency-Key`). When the `Origin` may post to the form (any origin when its `allowed_origins` is empty), the 204 carries the `Access-Control-Allow-*` headers; otherwise it has none, and the browser does not send the post.
         */
        options: operations["preflightForm"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling user, team, role and token
         * @description Requires any valid token; no particular ability.
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tokens minted by the calling user in this team
         * @description Requires the `tokens:read` ability.
         */
        get: operations["listTokens"];
        put?: never;
        /**
         * Mint a token; the plaintext is returned once
         * @description Requires the `tokens:write` ability.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a token of the calling user
         * @description Requires the `tokens:write` ability.
         */
        delete: operations["revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/team": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The billed team
         * @description Requires the `billing:read` ability.
         */
        get: operations["getBillingTeam"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's plan, its limits and features
         * @description Requires the `billing:read` ability.
         */
        get: operations["getBillingPlan"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage in the current billing period against the plan limits
         * @description Requires the `billing:read` ability.
         */
        get: operations["getBillingUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/subscription": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's subscription
         * @description Requires the `billing:read` ability.
         */
        get: operations["getBillingSubscription"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The team's invoices, newest first
         * @description Requires the `billing:read` ability.
         */
        get: operations["listInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the team's forms, newest first
         * @description Requires the `forms:read` ability.
         */
        get: operations["listForms"];
        put?: never;
        /**
         * Create a form (as a draft)
         * @description Requires the `forms:write` ability.
         */
        post: operations["createForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Show a form (deleted forms too)
         * @description Requires the `forms:read` ability.
         */
        get: operations["getForm"];
        /**
         * Update a form; settings are merged, custom_rules per list
         * @description Requires the `forms:write` ability.
         */
        put: operations["updateForm"];
        post?: never;
        /**
         * Move a form to the trash (restorable)
         * @description Requires the `forms:write` ability.
         */
        delete: operations["deleteForm"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish: the public endpoint starts accepting posts
         * @description Requires the `forms:write` ability.
         */
        post: operations["publishForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/unpublish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unpublish: the public endpoint answers 404
         * @description Requires the `forms:write` ability.
         */
        post: operations["unpublishForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore a deleted form
         * @description Requires the `forms:write` ability.
         */
        post: operations["restoreForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/fields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the field names a form has learned (its export columns)
         * @description Requires the `forms:read` ability.
         */
        get: operations["listFormFields"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/fields/prune": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forget learned field names no stored submission has (frees room under the limit)
         * @description Requires the `forms:write` ability.
         */
        post: operations["pruneFormFields"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/schema/suggested": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Propose a field schema from the form's newest inbox submissions, up to 1,000 or 4 MiB of them (types and required-ness seen)
         * @description Requires the `forms:read` ability.
         */
        get: operations["suggestFormSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/force": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Erase a form with its submissions, files, webhooks and deliveries (owner/admin)
         * @description Requires the `forms:write` ability.
         */
        delete: operations["forceDeleteForm"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream a form's new submissions as they are processed (server-sent events)
         * @description With `Accept: text/event-stream`: an open stream of server-sent events, each clean submission once processed (what webhooks are sent), in the order they were processed. Reconnect with `Last-Event-ID` (or `last_event_id`): the events after it are sent first, then new ones, none lost and none twice. Without that Accept header: one JSON answer with the events after `last_event_id` (a poll). At most 5 open streams per token and 20 per team (429 beyond). See docs/listen.md.
         *
         *     Requires the `submissions:read` ability.
         */
        get: operations["streamSubmissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a form's submissions, newest first
         * @description Requires the `submissions:read` ability.
         */
        get: operations["listSubmissions"];
        put?: never;
        /**
         * Submit to a form from your own server: the public endpoint's checks, without CORS, honeypot or CAPTCHA
         * @description The field schema (422 per field), custom rules, AI moderation, unique rules (409), limits and dates (403 `form_closed`), file limits and plan quotas apply as at `POST /f/{form}`; a repeated `Idempotency-Key` answers the first submission. Counted against INTAKE_SUBMIT_TOKEN_RATE_LIMIT a minute per token (not the API budget).
         *
         *     Requires the `submissions:create` ability.
         */
        post: operations["createSubmission"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete, mark as spam or not spam, tag, untag, move to a stage or assign up to 500 submissions at once
         * @description Requires the `submissions:write` ability.
         */
        post: operations["bulkSubmissions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream every submission as CSV or JSON
         * @description Requires the `submissions:export` ability.
         */
        get: operations["exportSubmissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions/{submission}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Show a submission with typed fields, metadata and signed file URLs
         * @description Answers an `ETag` (also in `data.etag`) to send as `If-Match` with a change.
         *
         *     Requires the `submissions:read` ability.
         */
        get: operations["getSubmission"];
        /**
         * Edit the payload (shallow merge), move the submission between states, or triage it: tags, stage, assignee
         * @description With `If-Match`, a submission changed since that `ETag` answers 412 `precondition_failed` and nothing changes. A triage change is recorded in the activity and sent as `submission.updated`; a new assignee is e-mailed.
         *
         *     Requires the `submissions:write` ability.
         */
        put: operations["updateSubmission"];
        post?: never;
        /**
         * Delete a submission with its files and audit trail, permanently
         * @description Requires the `submissions:write` ability.
         */
        delete: operations["deleteSubmission"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions/{submission}/files/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Redirect (302) to a freshly signed storage URL for the file, valid 60 seconds
         * @description Requires the `submissions:read` ability.
         */
        get: operations["downloadSubmissionFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/stages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The form's stages, each with how many inbox submissions are in it
         * @description Requires the `submissions:read` ability.
         */
        get: operations["listFormStages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tags in use on the form's inbox submissions, each with its count, the most used first (at most 1000)
         * @description Requires the `submissions:read` ability.
         */
        get: operations["listFormTags"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions/{submission}/notes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A submission's notes, oldest first. Notes are the team's: never sent to webhooks, the stream or e-mail
         * @description Requires the `submissions:read` ability.
         */
        get: operations["listSubmissionNotes"];
        put?: never;
        /**
         * Add a note to a submission (at most 1,000 per submission)
         * @description Requires the `submissions:write` ability.
         */
        post: operations["createSubmissionNote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions/{submission}/notes/{note}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a note: its author, or an admin or owner of the team
         * @description Requires the `submissions:write` ability.
         */
        delete: operations["deleteSubmissionNote"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/submissions/{submission}/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A submission's changes of stage, tags, assignee, folder and notes, newest first
         * @description Requires the `submissions:read` ability.
         */
        get: operations["listSubmissionActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A form's rules, in the order they run
         * @description Requires the `forms:read` ability.
         */
        get: operations["listRules"];
        put?: never;
        /**
         * Add a rule (at most 50 per form)
         * @description Requires the `forms:write` ability.
         */
        post: operations["createRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/rules/order": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Put the rules in a new order
         * @description Requires the `forms:write` ability.
         */
        put: operations["orderRules"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/rules/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dry run: which rules fire on a submission or a payload, and why (nothing is sent, stored or changed)
         * @description Runs the saved rules (or `rules`, unsaved) on a submission of the form or on a payload, and answers the rules that fire, their actions and a trace of every condition. With `submission_id` the caller needs `submissions:read` too.
         *
         *     Requires the `forms:write` ability.
         */
        post: operations["testRules"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/rules/{rule}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Show a rule
         * @description Requires the `forms:read` ability.
         */
        get: operations["getRule"];
        /**
         * Change a rule (the fields sent)
         * @description Requires the `forms:write` ability.
         */
        put: operations["updateRule"];
        post?: never;
        /**
         * Delete a rule (the rules after it move up)
         * @description Requires the `forms:write` ability.
         */
        delete: operations["deleteRule"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a form's webhooks
         * @description Requires the `webhooks:read` ability.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook; its signing secret is returned this once
         * @description Requires the `webhooks:write` ability.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/webhooks/{webhook}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Show a webhook
         * @description Requires the `webhooks:read` ability.
         */
        get: operations["getWebhook"];
        /**
         * Change a webhook, reactivate it, or rotate its secret
         * @description Requires the `webhooks:write` ability.
         */
        put: operations["updateWebhook"];
        post?: never;
        /**
         * Delete a webhook: no new deliveries; retries already scheduled still run
         * @description A deleted webhook stays readable by id (`GET` answers it with `deleted_at`) and its delivery log stays listed, so the retries of deliveries made before the delete can be followed; it is gone from the list and counts no more toward the limit.
         *
         *     Requires the `webhooks:write` ability.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/webhooks/{webhook}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed test event now and answer what the receiver said
         * @description Sends a `submission.created` body marked `"test": true` — the last submission delivered to this webhook, or a sample built from the form's fields — through the same sender as deliveries (HTTPS, address guard, 15 s timeout, no redirects), waits for the answer and records it as a delivery with event `webhook.test` (not retried). At most 6 test calls a minute per webhook.
         *
         *     Requires the `webhooks:write` ability.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/webhooks/{webhook}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Render the request a submission event would send to a webhook, without sending or storing anything
         * @description Renders the `submission.created` request of one submission of the form (`submission_id`) or of a made-up one (`payload`) with the webhook's body template, content type and extra headers — or with the `body_template`, `content_type` and `headers` given here, to try changes before saving them (checked as a save would: a template that does not parse or a refused header is a 400 naming the field). Nothing is sent, stored or changed.
         *
         *     Requires the `webhooks:write` ability.
         */
        post: operations["previewWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/webhooks/{webhook}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook's delivery log, newest first
         * @description Requires the `webhooks:read` ability.
         */
        get: operations["listDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{form}/webhooks/{webhook}/deliveries/{delivery}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again: a new delivery with the same body, signed now
         * @description Requires the `webhooks:write` ability.
         */
        post: operations["replayDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{delivery_id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again, by its id alone
         * @description Requires the `webhooks:write` ability.
         */
        post: operations["replayDeliveryById"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay a webhook's deliveries in the background (at most 10,000 per job)
         * @description Takes the latest delivery of each submission (or event) the webhook has, keeps those matching the filters, and queues a replay of each. Progress: `GET /v1/jobs/{job_id}`.
         *
         *     Requires the `webhooks:write` ability.
         */
        post: operations["replayWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ai-insights": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The latest weekly AI insights of the team (or of one form): `data` is null until they are first generated
         * @description Requires the `insights:read` ability.
         */
        get: operations["getAiInsights"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ai-insights/regenerate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Regenerate the team's insights and send the weekly digest, in the background
         * @description Answers at once. Completion shows as a new `generated_at` on `GET /v1/ai-insights` and as the `ai-insights.regenerated` webhook event. One call per team per 5 minutes: another within them answers 409 `already_running` with `retry_after`.
         *
         *     Requires the `insights:write` ability.
         */
        post: operations["regenerateAiInsights"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Progress of a background job (e.g. a bulk webhook replay)
         * @description Needs the read ability of what the job works on: `webhooks:read` for a webhook replay, `submissions:read` for an erasure.
         *
         *     Requires any valid token; no particular ability.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/erasure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Erase one person's data from every form of the team (owner/admin); a job, or with dry_run an answer at once
         * @description Finds every submission of the team in which the address or value appears — as a whole field or inside text, any form — and erases it with its files and the bodies of its webhook deliveries. Answers at once with the job to poll (`/v1/jobs/{id}`) and the receipt (`/v1/erasure/{id}`), which records what was erased, when and by which token, never the data. With `dry_run: true` it answers 200 at once with what would be erased (the same search, read-only), and queues nothing.
         *
         *     Requires the `submissions:write` ability.
         */
        post: operations["createErasure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/erasure/{erasure}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The receipt of an erasure request
         * @description Requires the `submissions:read` ability.
         */
        get: operations["getErasure"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "submission.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `submission.created` event
         * @description The `submission.created` webhook body.
         *
         *     Posted as JSON to the webhook's URL (provider `webhook`, `zapier`, `make`; chat providers get a message rendered from it), signed with the webhook's secret: verify the headers before trusting the body (the SDK's `verifyWebhook`).
         */
        post: operations["submissionCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "submission.spam": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `submission.spam` event
         * @description The `submission.spam` webhook body: a submission stored as spam (at the door or by moderation), `spam_reason` after `meta`.
         *
         *     Posted as JSON to the webhook's URL (provider `webhook`, `zapier`, `make`; chat providers get a message rendered from it), signed with the webhook's secret: verify the headers before trusting the body (the SDK's `verifyWebhook`).
         */
        post: operations["submissionSpamWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "submission.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `submission.updated` event
         * @description The `submission.updated` webhook body: a person changed a submission's stage, tags or assignee; the submission as it is now, `changes` and `actor` after the triage fields. Notes are never sent.
         *
         *     Posted as JSON to the webhook's URL (provider `webhook`, `zapier`, `make`; chat providers get a message rendered from it), signed with the webhook's secret: verify the headers before trusting the body (the SDK's `verifyWebhook`).
         */
        post: operations["submissionUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "ai-insights.regenerated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `ai-insights.regenerated` event
         * @description The `ai-insights.regenerated` webhook body.
         *
         *     Posted as JSON to the webhook's URL (provider `webhook`, `zapier`, `make`; chat providers get a message rendered from it), signed with the webhook's secret: verify the headers before trusting the body (the SDK's `verifyWebhook`).
         */
        post: operations["aiInsightsRegeneratedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "form.closed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `form.closed` event
         * @description The `form.closed` webhook body: the form took its last place and refuses posts (403 `form_closed`) until the limit is raised or a place freed (a submission deleted or marked spam).
         *
         *     Posted as JSON to the webhook's URL (provider `webhook`, `zapier`, `make`; chat providers get a message rendered from it), signed with the webhook's secret: verify the headers before trusting the body (the SDK's `verifyWebhook`).
         */
        post: operations["formClosedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `webhook.test` event
         * @description The body of a test event: a `submission.created` body with `test: true` after `meta`.
         *
         *     Posted as JSON to the webhook's URL (provider `webhook`, `zapier`, `make`; chat providers get a message rendered from it), signed with the webhook's secret: verify the headers before trusting the body (the SDK's `verifyWebhook`).
         */
        post: operations["webhookTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * @description An ability string, `<resource>:<action>`.
         * @enum {string}
         */
        Ability: "forms:read" | "forms:write" | "submissions:read" | "submissions:create" | "submissions:write" | "submissions:export" | "webhooks:read" | "webhooks:write" | "insights:read" | "insights:write" | "tokens:read" | "tokens:write" | "billing:read";
        AbilityExceedsCallerBody: {
            /** @enum {string} */
            error: "ability_exceeds_caller";
            exceeded: string[];
            message: string;
        };
        ActivityEntry: {
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            at: string;
            /** @description Who made it; null for a change made through a signed link of a notification e-mail or by the form's rules. */
            actor: {
                /** @description Prefix `usr_`. */
                id: string;
                email: string;
                name: string;
                /** @description The API token the change was made with. */
                token: {
                    id: string;
                    name: string;
                } | null;
            } | null;
            change: {
                /** @enum {string} */
                field: "stage" | "tags" | "assignee" | "folder" | "notes" | "rules";
                /** @description stage: its key; tags: the list; assignee: a member or null; folder: `inbox` or `spam`; notes: the note id; rules: the names of the rules that fired (from null). */
                from: string | string[] | components["schemas"]["Member"] | (string | null) | null;
                /** @description stage: its key; tags: the list; assignee: a member or null; folder: `inbox` or `spam`; notes: the note id; rules: the names of the rules that fired (from null). */
                to: string | string[] | components["schemas"]["Member"] | (string | null) | null;
            };
        };
        /** @description Set once the submission has been processed; null before. */
        AiModeration: {
            /** @description Spam likelihood, 0 (clean) to 1 (spam). */
            score: number;
            /** @enum {string} */
            verdict: "clean" | "suspicious" | "spam";
            reasons: string[];
            /** @description `local` or `openai`. */
            provider: string;
        };
        AlreadyRunningBody: {
            /** @enum {string} */
            error: "already_running";
            message: string;
            /** @description Seconds until the lock ends. */
            retry_after: number;
        };
        AssignAction: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "AssignAction";
            /** @description A member of the team (`usr_…`). */
            user_id: string;
        };
        AutoresponderInput: {
            enabled?: boolean;
            subject?: string;
            body_markdown?: string;
            from_name?: string | null;
            /** Format: email */
            reply_to?: string | null;
        };
        BillingPlan: {
            id: components["schemas"]["PlanId"];
            name: string;
            price_cents: number;
            currency: string;
            /** @enum {string} */
            interval: "month";
            limits: {
                /** @description null = unlimited */
                monthly_submissions: number | null;
                /** @description null = unlimited */
                forms: number | null;
                /** @description null = unlimited */
                storage_bytes: number | null;
                /** @description Largest accepted upload; 0 = uploads not included. */
                file_bytes: number;
            };
            features: {
                ai: boolean;
                api_tokens: boolean;
                file_uploads: boolean;
                autoresponder: boolean;
            };
        };
        BillingSubscription: {
            id: string;
            plan: components["schemas"]["PlanId"];
            /** @enum {string} */
            status: "active" | "past_due" | "canceled";
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            current_period_start: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            current_period_end: string;
            cancel_at_period_end: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
        };
        BillingTeam: {
            id: string;
            name: string;
            plan: components["schemas"]["PlanId"];
            members: number;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
        };
        BillingUsage: {
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            period_start: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            period_end: string;
            submissions: {
                used: number;
                /** @description null = unlimited */
                limit: number | null;
                remaining: number | null;
            };
            forms: {
                used: number;
                /** @description null = unlimited */
                limit: number | null;
            };
            storage_bytes: {
                used: number;
                /** @description null = unlimited */
                limit: number | null;
            };
        };
        BulkBody: {
            /** @description At most 500 submission ids; more gives 413 (after a 404 for an unknown form). An id that is not a submission of this form, whatever its shape or length, is listed in `skipped` (NUL and unpaired surrogates are refused in any body, 400). */
            ids: string[];
            /**
             * @description `add_tags` / `remove_tags` take `tags`, `set_stage` takes `stage`, `assign` takes `assignee_id`.
             * @enum {string}
             */
            action: "delete" | "mark_spam" | "mark_not_spam" | "add_tags" | "remove_tags" | "set_stage" | "assign";
            tags?: string[];
            /** @description 1–32 characters of a-z, 0-9 and `_`. */
            stage?: string;
            /** @description A member of the team; null unassigns. */
            assignee_id?: string | null;
        };
        BulkResult: {
            ok: boolean;
            affected: number;
            /** @description Ids the caller may not act on (other forms, other teams, deleted, unknown or malformed), in the order given, once each. */
            skipped: string[];
        };
        /** @description The CAPTCHA token is missing, refused or expired; nothing was stored. */
        CaptchaFailedBody: {
            /**
             * @description Machine-readable error code.
             * @enum {string}
             */
            error: "captcha_failed";
            /** @description Human-readable explanation. */
            message: string;
        };
        /** @description One condition on a submission. Text compares case-insensitively: equals, contains, starts_with, ends_with as their names say; in: equals one of the list. On a list field, a positive op holds when any item does; not_equals, not_contains and not_in hold when the positive op does not (no item equals, contains or is in the list), so they hold on a missing field too. gt, gte, lt, lte compare numbers: the field must be a number or a string that is one once trimmed, otherwise the condition does not hold. exists: the field is present and not empty or blank; not_exists: the opposite. matches: the RE2 pattern is found anywhere in the text, case-insensitive. */
        Condition: {
            /** @description A payload field name, or one of `@category` (the AI category), `@ai_score` (the AI spam score, 0 to 1), `@spam_reason`, `@referrer` (the page's URL), `@source` (`form` or `api`): the submission's own. */
            field: string;
            /** @enum {string} */
            op: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "exists" | "not_exists" | "matches";
            /** @description By op: a string (at most 1000 characters) for equals, not_equals, contains, not_contains, starts_with, ends_with; a list of 1–50 strings for in, not_in; a number (or a numeric string) for gt, gte, lt, lte; an RE2 pattern of at most 200 characters for matches (no backreferences nor lookaround; at most 500 instructions once compiled, so no large repeat counts); none for exists, not_exists. */
            value?: string | number | string[];
        };
        ConditionTrace: {
            field: string;
            op: string;
            /** @description As written in the condition: a string, a number or a list of strings; null for `exists`, `not_exists`. */
            value: string | number | string[] | null;
            /** @description The submission's value of the field; null when it has none. */
            actual?: unknown;
            holds: boolean;
        };
        CreateErasure200Response: {
            data: components["schemas"]["ErasureDryRun"];
        };
        CreateErasure202Response: {
            job_id: string;
            erasure_id: string;
        };
        CreateFormResponse: {
            data: components["schemas"]["Form"];
        };
        CreateNoteBody: {
            /** @description Plain text, 1–10,000 characters. */
            body: string;
        };
        CreateRuleResponse: {
            data: components["schemas"]["Rule"];
        };
        CreateSubmission403Error: components["schemas"]["FormClosedBody"] | components["schemas"]["ErrorBody"];
        CreateSubmission409Error: components["schemas"]["DuplicateSubmissionBody"] | components["schemas"]["ErrorBody"];
        /** @description As JSON; or as multipart/form-data with files: each part a field or a file, and the client as parts `client[ip]`, `client[user_agent]`, `client[referrer]`. */
        CreateSubmissionBody: {
            /** @description The form's fields, as a website would post them (names starting with `_` are control fields, e.g. `_replyto`). at most 200 fields, names of at most 64 characters, values of at most 64 KB; at most 2000 values in all, in any kind of body (a name sent more than once counts each value; JSON counts every list item and nested value); urlencoded and JSON bodies of at most 1 MB; multipart: at most 10 files of at most 10 MB each (when the plan includes uploads, within its own file limit); JSON nested at most 5 levels. */
            fields: {
                [key: string]: unknown;
            };
            /** @description What your server knows of the person who filled the form in; kept in `metadata`. */
            client?: {
                /** @description The visitor's address: the form's per-address limits apply to it when given. */
                ip?: string;
                user_agent?: string;
                referrer?: string;
            };
        };
        /** @description Each part a field (text) or a file (binary); the client as parts `client[ip]`, `client[user_agent]`, `client[referrer]`. */
        CreateSubmissionMultipartBody: {
            [key: string]: string;
        };
        CreateSubmissionNoteResponse: {
            data: components["schemas"]["Note"];
        };
        CreateSubmissionResponse: {
            data: components["schemas"]["SubmissionDetail"];
        };
        /** @description Every error body: `{ error, message, ...extra }`. */
        CreateToken403Error: components["schemas"]["ErrorBody"] | components["schemas"]["AbilityExceedsCallerBody"];
        CreateTokenBody: {
            name: string;
            /** @description Non-empty list of ability strings, each held by the calling token. */
            abilities: string[];
            /** @description When the token stops working: an ISO 8601 instant (without a zone it is UTC) in the future, at most 10 years ahead. Omitted or null: it never expires. */
            expires_at?: string | null;
        };
        CreateTokenResponse: {
            data: components["schemas"]["Token"];
            /** @description The plaintext token, shown only here. */
            token: string;
        };
        CreateWebhookResponse: {
            data: components["schemas"]["Webhook"];
            /** @description Signing secret, `whsec_…`: shown only now. */
            secret: string;
        };
        CustomRules: {
            /** @description Addresses (`a@b.com`) or whole domains (`@b.com`) whose submissions are spam. */
            blocked_emails: string[];
            /** @description Case-insensitive words or phrases that mark spam. */
            keywords: string[];
            /** @description Case-insensitive regular expressions that mark spam, in RE2 syntax (linear-time: no backreferences or lookaround), matched against the first 8,000 characters of the submission text (fewer with more than 4 rules: 32,000 ÷ rules). */
            regex: string[];
        };
        DeleteSubmissionNoteResponse: {
            /** @enum {boolean} */
            ok: true;
        };
        Delivery: {
            /** @description Prefix `whd_`. */
            id: string;
            webhook_id: string;
            /**
             * @description The event sent; `webhook.test` for a test call (a sample `submission.created` body with `test: true`).
             * @enum {string}
             */
            event: "submission.created" | "submission.spam" | "submission.updated" | "ai-insights.regenerated" | "form.closed" | "webhook.test";
            status: components["schemas"]["DeliveryStatus"];
            /** @description Status the receiver answered on the last attempt; null without an answer. */
            http_status: number | null;
            /** @description Attempts made so far (at most 7). */
            attempts: number;
            /** @description Duration of the last attempt. */
            duration_ms: number | null;
            submission_id: string | null;
            /** @description The body sent (the same bytes on every attempt and replay): the JSON, parsed; a templated `form` or `text` body as the text sent. Null once its submission was deleted, or when its body template could not be rendered. */
            request_body: {
                [key: string]: unknown;
            } | string | null;
            /** @description The media type the body was sent as: application/json, or a templated body's application/x-www-form-urlencoded or text/plain; charset=utf-8. */
            content_type: string;
            /** @description First 4 KB of the last answer. */
            response_body: string | null;
            /** @description Why the last attempt failed without a usable answer: timeout, dns_error, tls_error, connection_refused, connection_reset, blocked_address, network_error; or webhook_inactive when its retries were stopped (a deleted webhook's continue); or `template_error: <why>` when the body template could not be rendered (nothing was sent; the delivery is dead). */
            error: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            delivered_at: string | null;
            /**
             * Format: date-time
             * @description When the next attempt is due; null when none is.
             */
            next_attempt_at: string | null;
            /** @description The delivery this one replays. */
            replay_of: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            updated_at: string;
        };
        DeliveryPage: {
            data: components["schemas"]["Delivery"][];
            meta: {
                per_page: number;
                /** @description Pass as `cursor` for older deliveries; null on the last page. */
                next_cursor: string | null;
            };
        };
        /**
         * @description `pending` before the first answer, `failed` while retrying, then `succeeded` or `dead` (no attempt left).
         * @enum {string}
         */
        DeliveryStatus: "pending" | "succeeded" | "failed" | "dead";
        /** @description A clean submission kept within the window has the same values of these fields; nothing was stored. */
        DuplicateSubmissionBody: {
            /** @enum {string} */
            error: "duplicate_submission";
            /** @description The rule's `message`, or a default. */
            message: string;
            /** @description The rule's fields. */
            fields: string[];
        };
        ErasureDryRun: {
            /** @enum {boolean} */
            dry_run: true;
            /** @description Submissions a real run would erase now. */
            submissions: number;
            /** @description Their files, which a real run would remove from storage. */
            files: number;
            /** @description Webhook deliveries whose bodies a real run would remove (the log entries stay). */
            deliveries_redacted: number;
            /** @description Ids of the forms (trashed ones included) those submissions belong to. */
            forms: string[];
            /** @description The first 1,000 of those submissions, in the order a real run erases them (by form id, then oldest first); `submissions` counts them all. */
            submission_ids: string[];
        };
        ErasureJobResult: {
            /** @description The erasure request (`era_…`). */
            erasure_id: string;
            /** @description A dry run: the counts are of what a real run would erase. */
            dry_run: boolean;
            /** @description Submissions erased (or, in a dry run, that would be). */
            submissions: number;
            /** @description Their files, removed from storage. */
            files: number;
            /** @description Webhook deliveries whose bodies were removed (the log entries stay). */
            deliveries_redacted: number;
            /** @description Submissions per form id. */
            forms: {
                [key: string]: number;
            };
        };
        ErasureReceipt: {
            /** @description Prefix `era_`. */
            id: string;
            job_id: string;
            /**
             * @description What was searched for (the value itself is not kept).
             * @enum {string}
             */
            kind: "email" | "value";
            dry_run: boolean;
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed";
            requested_by: {
                token_id: string | null;
                user_id: string | null;
            };
            erased: {
                /** @description Submissions erased (or, in a dry run, that would be). */
                submissions: number;
                /** @description Their files, removed from storage. */
                files: number;
                /** @description Webhook deliveries whose bodies were removed (the log entries stay). */
                deliveries_redacted: number;
                /** @description Submissions per form id. */
                forms: {
                    [key: string]: number;
                };
            };
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            finished_at: string | null;
        };
        /** @description Every error body: `{ error, message, ...extra }`. */
        ErrorBody: {
            /**
             * @description Machine-readable error code, one of:
             *
             *     - `validation_failed` (400): The request breaks its schema; `details` lists every failing field (`in`, `path`, `message`).
             *     - `invalid_json` (400): The body is not well-formed JSON.
             *     - `unsupported_media_type` (415): The body is not in a content type the operation takes (send `application/json`).
             *     - `unauthenticated` (401): The bearer token is missing, unknown, expired or revoked.
             *     - `forbidden` (403): The token lacks the ability the operation needs, or the caller may not act on this record.
             *     - `ability_exceeds_caller` (403): A token cannot be given abilities its creator lacks; `exceeded` lists them.
             *     - `cannot_revoke_active_token` (403): A token cannot revoke itself.
             *     - `payment_required` (402): The team's plan does not include this.
             *     - `plan_limit_reached` (402): One of the plan's limits is reached (forms, webhooks, file storage…); `limit` says which when known.
             *     - `quota_exceeded` (402): The team's monthly submissions are used up.
             *     - `not_found` (404): No such record, or one of another team (reported alike).
             *     - `conflict` (409): The request conflicts with the current state of the record.
             *     - `already_running` (409): The same work is already under way; wait for it.
             *     - `submission_deleted` (409): The submission was deleted.
             *     - `duplicate_submission` (409): A clean submission the form keeps has the same values of a unique rule's fields (`fields`); nothing was stored.
             *     - `form_closed` (403): The form is not taking submissions (`reason`: `not_yet_open`, `closed` or `limit_reached`); nothing was stored.
             *     - `webhook_inactive` (409): The webhook is deactivated; activate it first.
             *     - `precondition_failed` (412): The resource changed since the `ETag` sent as `If-Match`; read it again and retry; nothing was changed.
             *     - `payload_too_large` (413): The body, or an array or value in it, is past its limit; nothing was kept.
             *     - `captcha_failed` (422): The CAPTCHA token is missing, refused or expired.
             *     - `plan_lacks_ai` (423): The team's plan does not include AI features.
             *     - `rate_limited` (429): Too many requests; retry after `Retry-After` seconds (also `retry_after`).
             *     - `request_timeout` (408): The body arrived too slowly or not in full; nothing was kept.
             *     - `internal_error` (500): A failure on our side; the `X-Request-Id` header identifies the request.
             *     - `service_unavailable` (503): The database or object storage cannot be reached; nothing was changed. Retry after `Retry-After` seconds.
             * @enum {string}
             */
            error: "validation_failed" | "invalid_json" | "unsupported_media_type" | "unauthenticated" | "forbidden" | "ability_exceeds_caller" | "cannot_revoke_active_token" | "payment_required" | "plan_limit_reached" | "quota_exceeded" | "not_found" | "conflict" | "already_running" | "submission_deleted" | "duplicate_submission" | "form_closed" | "webhook_inactive" | "precondition_failed" | "payload_too_large" | "captcha_failed" | "plan_lacks_ai" | "rate_limited" | "request_timeout" | "internal_error" | "service_unavailable";
            /** @description Human-readable explanation. */
            message?: string;
        } & {
            [key: string]: unknown;
        };
        ExportSubmissionsResponse: components["schemas"]["ExportedSubmission"][];
        ExportedSubmission: {
            id: string;
            /** @description ISO 8601, UTC, milliseconds. */
            received_at: string;
            status: components["schemas"]["SubmissionStatus"];
            spam_reason: string | null;
            category: string | null;
            ai_moderation: {
                score: number;
                verdict: string;
                reasons: string[];
                provider: string;
            } | null;
            /**
             * @description `form`: the public endpoint; `api`: a server-side submit.
             * @enum {string}
             */
            source: "form" | "api";
            tags: string[];
            stage: string;
            assignee: components["schemas"]["Member"] | null;
            rules_applied: components["schemas"]["RuleApplied"][];
            payload: {
                [key: string]: unknown;
            };
            files: {
                id: string;
                field: string;
                filename: string;
                content_type: string;
                size: number;
                /** @description A link valid for 7 days; each visit redirects to a fresh 60-second storage URL. */
                url: string;
            }[];
        };
        FieldErrorsBody: {
            /** @enum {string} */
            error: "validation_failed";
            message: string;
            /** @description Per posted field name, what is wrong, in plain words. */
            fields: {
                [key: string]: string[];
            };
        };
        /** @description The request's `Origin` is not one of the form's `allowed_origins`. */
        ForbiddenOriginBody: {
            /**
             * @description Machine-readable error code.
             * @enum {string}
             */
            error: "forbidden";
            /** @description Human-readable explanation. */
            message: string;
        };
        Form: {
            /** @description Prefix `frm_`. */
            id: string;
            name: string;
            /** @enum {string} */
            status: "draft" | "published";
            /** @description The public URL websites post to. */
            endpoint_url: string;
            notification_emails: string[];
            /** @description Each notification address and whether it has confirmed. */
            notification_recipients: components["schemas"]["NotificationRecipient"][];
            settings: components["schemas"]["FormSettings"];
            /** @description Stored custom rules the spam filter cannot run (saved before rules ran on RE2); they are not applied until replaced. */
            disabled_rules: {
                /** @enum {string} */
                kind: "regex";
                pattern: string;
                reason: string;
            }[];
            submissions_count: number;
            /** @description The retention in force. */
            retention: {
                /** @description Days submissions are kept, the plan's cap applied; null = for ever. */
                submissions_days: number | null;
                /** @description Days spam is kept, the plan's cap applied; null = for ever. */
                spam_days: number | null;
                /**
                 * Format: date-time
                 * @description When the daily job will next delete some of this form's submissions; null = nothing stored will age out.
                 */
                next_deletion_at: string | null;
            };
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            updated_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            deleted_at: string | null;
        };
        /** @description The form is not taking submissions; nothing was stored. */
        FormClosedBody: {
            /** @enum {string} */
            error: "form_closed";
            /** @description The form's `closed_message`, or a default. */
            message: string;
            /**
             * @description `not_yet_open`: before `opens_at`; `closed`: from `closes_at`; `limit_reached`: `max_submissions` kept.
             * @enum {string}
             */
            reason: "not_yet_open" | "closed" | "limit_reached";
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            opens_at: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            closes_at: string | null;
        };
        /** @description The `form.closed` webhook body: the form took its last place and refuses posts (403 `form_closed`) until the limit is raised or a place freed (a submission deleted or marked spam). */
        FormClosedEvent: {
            /** @enum {string} */
            type: "form.closed";
            form_id: string;
            form_name: string;
            /**
             * @description Why it closed: `limit_reached`, it keeps `max_submissions` clean submissions.
             * @enum {string}
             */
            reason: "limit_reached";
            /** @description When the post that took the last place was accepted: ISO 8601, UTC, milliseconds. */
            closed_at: string;
            /** @description The form's limit when the event was sent. */
            max_submissions: number;
            /** @description The clean submissions the form keeps (spam and deleted ones do not count). */
            submissions: number;
        };
        FormField: {
            name: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            first_seen_at: string;
        };
        FormFieldList: {
            /** @description The field names the form has learned, in first-seen order: the columns of its CSV export. */
            data: components["schemas"]["FormField"][];
            meta: {
                count: number;
                /** @description The most names a form learns; later names stay in the payload and export in `_other`. */
                limit: number;
                /** @description Some stored submission has fields beyond the learned names (exported in `_other`). */
                overflow: boolean;
            };
        };
        FormSettings: {
            /** @description Where browsers go after a post (303): an absolute http(s) URL; null = built-in thank-you page. */
            redirect_url: string | null;
            /** @description Hidden field bots fill in; default `_gotcha`. */
            honeypot_field: string;
            /** @description Origins allowed by CORS and as `_next` redirect hosts; empty = any origin. */
            allowed_origins: string[];
            custom_rules: components["schemas"]["CustomRules"];
            /** @description AI spam score at or above which a submission is spam; default 0.75. */
            ai_threshold: number;
            /** @description The form's field schema, in column order; empty = no schema (any field is kept as posted). */
            fields: components["schemas"]["SchemaFieldView"][];
            unknown_fields: components["schemas"]["UnknownFields"];
            /** @description The CAPTCHA posts must pass (verified server-side with the provider); null = none. */
            captcha: {
                /** @enum {string} */
                provider: "turnstile" | "hcaptcha" | "recaptcha_v2" | "recaptcha_v3";
                /** @description The last 4 characters of the provider secret (the secret itself is never returned). */
                secret_last4: string;
                /** @description reCAPTCHA v3: the least score accepted (default 0.5); null for other providers. */
                min_score: number | null;
            } | null;
            /** @description The e-mail sent to the submitter of each clean submission (not on the Free plan). */
            autoresponder: {
                enabled: boolean;
                /** @description With `{{field}}` placeholders. */
                subject: string;
                /** @description Markdown with `{{field}}` placeholders (values are inserted as plain text). */
                body_markdown: string;
                /** @description The sender's display name (the address is the service's). */
                from_name: string | null;
                /** @description Where the submitter's replies go. */
                reply_to: string | null;
            };
            retention: components["schemas"]["Retention"];
            /**
             * @description `instant`: one e-mail per submission (default); `hourly` / `daily` (08:00 UTC): one digest per period listing its clean submissions, none for an empty period.
             * @enum {string}
             */
            notification_mode: "instant" | "hourly" | "daily";
            /** @description Also e-mail the notification addresses about spam, marked as spam with its reason (instant mode); default false. */
            notify_spam: boolean;
            /** @description Up to 5 duplicate rules; default none. */
            unique: components["schemas"]["UniqueRule"][];
            /** @description Clean submissions the form keeps before it closes (`limit_reached`); spam and deleted ones do not count. null = no limit. */
            max_submissions: number | null;
            /**
             * Format: date-time
             * @description Before this instant the form is closed (`not_yet_open`); null = open now.
             */
            opens_at: string | null;
            /**
             * Format: date-time
             * @description From this instant the form is closed (`closed`); after `opens_at`. null = never.
             */
            closes_at: string | null;
            /** @description What a closed form tells people (the page a browser is shown, the `message` of the 403); null = a default. */
            closed_message: string | null;
            /** @description Where a browser posting to a closed form is sent (303) instead of the closed page. */
            closed_redirect_url: string | null;
            /** @description Up to 20 stages, keys unique; new submissions get the first. Default New (`new`), In progress (`in_progress`), Done (`done`, done). Removing a stage that submissions are in needs `reassign_stages` in the same update. */
            stages: components["schemas"]["Stage"][];
        };
        GetAiInsightsResponse: {
            data: components["schemas"]["Insights"] | null;
        };
        GetBillingPlanResponse: {
            data: components["schemas"]["BillingPlan"];
        };
        GetBillingSubscriptionResponse: {
            data: components["schemas"]["BillingSubscription"];
        };
        GetBillingTeamResponse: {
            data: components["schemas"]["BillingTeam"];
        };
        GetBillingUsageResponse: {
            data: components["schemas"]["BillingUsage"];
        };
        GetErasureResponse: {
            data: components["schemas"]["ErasureReceipt"];
        };
        GetFormResponse: {
            data: components["schemas"]["Form"];
        };
        GetJobResponse: {
            data: components["schemas"]["Job"];
        };
        GetMeResponse: {
            data: components["schemas"]["Me"];
        };
        GetRuleResponse: {
            data: components["schemas"]["Rule"];
        };
        GetSubmissionResponse: {
            data: components["schemas"]["SubmissionDetail"];
        };
        GetWebhookResponse: {
            data: components["schemas"]["Webhook"];
        };
        /** @description A week of a team's (or one form's) submissions, summarised. */
        Insights: {
            /**
             * Format: date-time
             * @description Time of the last generation.
             */
            generated_at: string;
            /**
             * Format: date-time
             * @description Monday 00:00 UTC that starts the week summarised (included).
             */
            period_start: string;
            /**
             * Format: date-time
             * @description The following Monday 00:00 UTC (excluded): the week is [period_start, period_end).
             */
            period_end: string;
            /** @description Submissions received in the week, spam included. */
            submissions_total: number;
            /** @description Relative change of `submissions_total` against the week before, as a fraction (0.18 is a rise of 18 %). When the week before had none: 1 if this week has any, else 0. */
            delta_vs_prior_week: number;
            /** @description What clean submissions wrote about, most frequent first; `count` is submissions. */
            themes: {
                label: string;
                count: number;
            }[];
            /** @description Clean submissions by category, most frequent first. */
            categories: {
                name: string;
                count: number;
            }[];
            /** @description Submissions of the week by spam score; each bucket includes its lower bound and excludes its upper one (1.0 falls in `0.85-1.0`). Unscored submissions are not counted. */
            score_distribution: {
                "0.0-0.3": number;
                "0.3-0.6": number;
                "0.6-0.85": number;
                "0.85-1.0": number;
            };
            /** @description Markdown summary of the week. */
            summary_md: string;
            /** @description Spam of the week by reason (`honeypot_filled`, `rate_limited`, `rule:<kind>`, `ai_moderation`), most frequent first. */
            spam_reasons: {
                reason: string;
                count: number;
            }[];
        };
        /** @description The `ai-insights.regenerated` webhook body. */
        InsightsRegeneratedEvent: {
            /** @enum {string} */
            type: "ai-insights.regenerated";
            team_id: string;
            /** @description ISO 8601, UTC. */
            generated_at: string;
            period_start: string;
            period_end: string;
            submissions_total: number;
            /** @description Relative change as a fraction: 0.18 is a rise of 18 %. */
            delta_vs_prior_week: number;
            summary_md: string;
            themes: {
                label: string;
                count: number;
            }[];
            categories: {
                name: string;
                count: number;
            }[];
        };
        Invoice: {
            id: string;
            number: string;
            /** @enum {string} */
            status: "draft" | "open" | "paid" | "void";
            currency: string;
            amount_cents: number;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            period_start: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            period_end: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            issued_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            paid_at: string | null;
        };
        Job: {
            /** @description Prefix `job_`. */
            id: string;
            /** @enum {string} */
            type: "webhook_replay" | "erasure";
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed";
            /** @description Items the job takes on. */
            total: number;
            /** @description Items handled so far (for a replay: replays queued). */
            done: number;
            /** @description Items that could not be handled; see `errors`. */
            failed: number;
            /** @description At most 100, oldest first. */
            errors: {
                id: string | null;
                error: string;
                message: string;
            }[];
            /** @description What the job produced: an erasure's counts (its receipt's); null for a replay. */
            result: components["schemas"]["ErasureJobResult"] | null;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            started_at: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            finished_at: string | null;
        };
        ListFormStagesResponse: {
            data: components["schemas"]["StageCount"][];
        };
        ListFormTagsResponse: {
            data: components["schemas"]["TagCount"][];
        };
        ListFormsResponse: {
            data: components["schemas"]["Form"][];
            links: components["schemas"]["PageLinks"];
            meta: components["schemas"]["PageMeta"];
        };
        ListInvoicesResponse: {
            data: components["schemas"]["Invoice"][];
        };
        ListRulesResponse: {
            data: components["schemas"]["Rule"][];
        };
        ListSubmissionActivityResponse: {
            data: components["schemas"]["ActivityEntry"][];
            links: components["schemas"]["PageLinks"];
            meta: components["schemas"]["PageMeta"];
        };
        ListSubmissionNotesResponse: {
            data: components["schemas"]["Note"][];
            links: components["schemas"]["PageLinks"];
            meta: components["schemas"]["PageMeta"];
        };
        ListTokensResponse: {
            data: components["schemas"]["TokenListEntry"][];
        };
        ListWebhooksResponse: {
            data: components["schemas"]["Webhook"][];
        };
        Me: {
            user: {
                id: string;
                email: string;
                name: string;
                /**
                 * Format: date-time
                 * @description ISO 8601 timestamp in UTC.
                 */
                created_at: string;
            };
            team: {
                id: string;
                name: string;
                plan: string;
                /**
                 * Format: date-time
                 * @description ISO 8601 timestamp in UTC.
                 */
                created_at: string;
            };
            role: components["schemas"]["Role"];
            token: {
                id: string;
                name: string;
                abilities: components["schemas"]["Ability"][];
            };
        };
        /** @description A member of the team. */
        Member: {
            /** @description Prefix `usr_`. */
            id: string;
            email: string;
            name: string;
        };
        MoveToSpamAction: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "MoveToSpamAction";
            /** @description Recorded as the submission's `spam_reason` detail. */
            reason: string;
        };
        Note: {
            /** @description Prefix `note_`. */
            id: string;
            body: string;
            /** @description Who made it; null for a change made through a signed link of a notification e-mail or by the form's rules. */
            author: {
                /** @description Prefix `usr_`. */
                id: string;
                email: string;
                name: string;
                /** @description The API token the change was made with. */
                token: {
                    id: string;
                    name: string;
                } | null;
            } | null;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
        };
        NotificationRecipient: {
            email: string;
            /**
             * @description `pending` until the address confirms by its e-mailed link (no notifications until then); `not_required` when the server does not verify addresses.
             * @enum {string}
             */
            status: "verified" | "pending" | "not_required";
        };
        NotifyAction: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "NotifyAction";
            /** @description 1–10 addresses sent the notification e-mail (confirmed like the form's own when the team confirms addresses). */
            to: string[];
            /** @description A template for the subject (`{{ field }}`, `{{ form.name }}`, filters); default: the usual subject. */
            subject?: string;
            /**
             * @description When true, the form's own notification addresses are not mailed for a submission this rule fires on.
             * @default false
             */
            replace_default: boolean;
        };
        OkBody: {
            /** @enum {boolean} */
            ok: true;
        };
        OrderRulesBody: {
            /** @description Every rule of the form, once each, in the order they are to run. */
            ids: string[];
        };
        OrderRulesResponse: {
            data: components["schemas"]["Rule"][];
        };
        PageLinks: {
            first: string | null;
            last: string | null;
            prev: string | null;
            next: string | null;
        };
        PageMeta: {
            current_page: number;
            per_page: number;
            total: number;
            last_page: number;
        };
        ParsedField: {
            name: string;
            /** @enum {string} */
            type: "string" | "number" | "boolean" | "date" | "email" | "url" | "list" | "object" | "empty";
            /** @description The value converted to its type (numbers, booleans, ISO dates). */
            value?: unknown;
        };
        /** @description A limit of the endpoint was crossed; nothing was stored. */
        PayloadTooLargeBody: {
            /**
             * @description Machine-readable error code.
             * @enum {string}
             */
            error: "payload_too_large";
            /** @description Human-readable explanation. */
            message: string;
        };
        /** @enum {string} */
        PlanId: "free" | "pro" | "team" | "scale";
        PostRefusedBody: components["schemas"]["FieldErrorsBody"] | components["schemas"]["CaptchaFailedBody"];
        /** @description Exactly one of `submission_id` and `payload`; the other fields preview changes not saved yet. */
        PreviewWebhookBody: {
            /** @description A submission of the form: the body its `submission.created` (or, if it is spam, `submission.spam`) would send. */
            submission_id?: string;
            /** @description Fields of a made-up submission (nothing is stored), as a website would post them. */
            payload?: {
                [key: string]: unknown;
            };
            /** @description Preview this template instead of the webhook's (null: the default body). */
            body_template?: string | null;
            /**
             * @description Preview with this content type instead of the webhook's.
             * @enum {string}
             */
            content_type?: "json" | "form" | "text";
            /** @description Preview these extra headers instead of the webhook's. */
            headers?: {
                [key: string]: string;
            };
        };
        /**
         * @description How the body is formatted: a chat message (slack, discord, teams) or the event JSON.
         * @enum {string}
         */
        Provider: "slack" | "discord" | "teams" | "zapier" | "make" | "webhook";
        PruneFormFieldsResponse: {
            data: {
                removed: string[];
            };
            meta: {
                count: number;
                /** @description The most names a form learns; later names stay in the payload and export in `_other`. */
                limit: number;
                /** @description Some stored submission has fields beyond the learned names (exported in `_other`). */
                overflow: boolean;
            };
        };
        /** @description No published form has this id (unknown, draft, unpublished or deleted). */
        PublicNotFoundBody: {
            /**
             * @description Machine-readable error code.
             * @enum {string}
             */
            error: "not_found";
            /** @description Human-readable explanation. */
            message: string;
        };
        /** @description `quota_exceeded`: the team used its plan's submissions for this month. `plan_limit_reached`: files on a plan without uploads, or past the team's file storage. */
        PublicPaymentRequiredBody: {
            /**
             * @description Machine-readable error code.
             * @enum {string}
             */
            error: "quota_exceeded" | "plan_limit_reached";
            /** @description Human-readable explanation. */
            message: string;
            /** @description The plan's file storage in bytes, when that is what is reached. */
            limit?: number;
        };
        PublishFormResponse: {
            data: components["schemas"]["Form"];
        };
        RateLimitedBody: {
            /** @enum {string} */
            error: "rate_limited";
            message: string;
            /** @description Seconds until the window resets. */
            retry_after: number;
        };
        RegenerateAiInsightsResponse: {
            /** @enum {boolean} */
            ok: true;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            queued_at: string;
        };
        ReplayDeliveryByIdResponse: {
            delivery_id: string;
            /** @enum {string} */
            status: "queued";
        };
        ReplayDeliveryResponse: {
            /** @enum {boolean} */
            ok: true;
            delivery_id: string;
        };
        ReplayWebhookBody: {
            /** @description Only deliveries in this state (e.g. `failed` or `dead`). */
            status?: components["schemas"]["DeliveryStatus"];
            /** @description Only deliveries created at or after this time. */
            since?: string;
            /** @description Only deliveries created before this time. */
            until?: string;
        };
        ReplayWebhookResponse: {
            job_id: string;
            /** @enum {string} */
            status: "queued";
        };
        RestoreFormResponse: {
            data: components["schemas"]["Form"];
        };
        /** @description How long submissions are kept; a daily job deletes what has aged out, with its files. */
        Retention: {
            /** @description Days a submission is kept (not spam); null = for ever (the plan may cap it). */
            submissions_days: number | null;
            /** @description Days spam is kept; default 30; null = for ever (the plan may cap it). */
            spam_days: number | null;
        };
        /** @enum {string} */
        Role: "owner" | "admin" | "editor" | "viewer";
        Rule: {
            /** @description Prefix `rule_`. */
            id: string;
            form_id: string;
            name: string;
            enabled: boolean;
            /** @description Rules run in this order, from 1. */
            position: number;
            /** @enum {string} */
            on: "submission.created" | "submission.spam";
            when: components["schemas"]["RuleWhen"];
            actions: components["schemas"]["RuleAction"][];
            /** @description When this rule fires, the rules after it do not run. */
            stop: boolean;
            /** @description Fires only when no other rule did (its conditions must still hold). */
            fallback: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            updated_at: string;
        };
        RuleAction: components["schemas"]["NotifyAction"] | components["schemas"]["WebhookAction"] | components["schemas"]["TagAction"] | components["schemas"]["StageAction"] | components["schemas"]["AssignAction"] | components["schemas"]["MoveToSpamAction"] | components["schemas"]["SkipNotificationsAction"] | components["schemas"]["SkipAutoresponderAction"];
        RuleApplied: {
            rule_id: string;
            name: string;
            /** @description The types of the actions it took. */
            actions: string[];
        };
        RuleTrace: {
            rule_id: string;
            conditions: components["schemas"]["ConditionTrace"][];
            /** @description Its conditions hold. */
            holds: boolean;
            fired: boolean;
            /**
             * @description Why it did not run: disabled, it runs on the other event, a rule before it stopped, or it is a fallback and another rule fired.
             * @enum {string|null}
             */
            skipped: "disabled" | "other_event" | "stopped" | "fallback" | null;
        };
        /** @description `{ "all": [...] }`: every condition holds; `{ "any": [...] }`: at least one does (at most 10). No conditions (or no `when`): the rule always holds. */
        RuleWhen: {
            all: components["schemas"]["Condition"][];
        } | {
            any: components["schemas"]["Condition"][];
        };
        SchemaField: {
            /** @description The posted field name (not starting with `_`, which marks control fields). */
            name: string;
            /** @description How people see the field: the CSV header and the error messages (default: the name). */
            label?: string;
            /** @enum {string} */
            type: "text" | "email" | "url" | "number" | "integer" | "tel" | "date" | "datetime" | "boolean" | "select" | "multiselect" | "file";
            /** @description Must be present and not empty (a `boolean` must be checked); default false. */
            required?: boolean;
            /** @description Least length (text, email, url, tel), value (number, integer) or choices (multiselect). */
            min?: number;
            /** @description Greatest length (text, email, url, tel), value (number, integer) or choices (multiselect). */
            max?: number;
            /** @description RE2 regular expression the whole value must match, as the HTML `pattern` attribute (text, email, url, tel). */
            pattern?: string;
            /** @description The allowed values (select, multiselect). */
            options?: string[];
            /** @description Most files in the field (file); default 1. */
            max_files?: number;
            /** @description Allowed MIME types, `image/*` style wildcards allowed (file); default any. */
            accept?: string[];
        };
        SchemaFieldView: {
            /** @description The posted field name (not starting with `_`, which marks control fields). */
            name: string;
            /** @description How people see the field: the CSV header and the error messages (default: the name). */
            label?: string;
            /** @enum {string} */
            type: "text" | "email" | "url" | "number" | "integer" | "tel" | "date" | "datetime" | "boolean" | "select" | "multiselect" | "file";
            required: boolean;
            /** @description Least length (text, email, url, tel), value (number, integer) or choices (multiselect). */
            min?: number;
            /** @description Greatest length (text, email, url, tel), value (number, integer) or choices (multiselect). */
            max?: number;
            /** @description RE2 regular expression the whole value must match, as the HTML `pattern` attribute (text, email, url, tel). */
            pattern?: string;
            /** @description The allowed values (select, multiselect). */
            options?: string[];
            /** @description Most files in the field (file); default 1. */
            max_files?: number;
            /** @description Allowed MIME types, `image/*` style wildcards allowed (file); default any. */
            accept?: string[];
        };
        SignedSubmissionFile: {
            /** @description Prefix `file_`; the id used in the download path. */
            id: string;
            /** @description The form field the file was posted in. */
            field: string;
            filename: string;
            content_type: string;
            /** @description Bytes. */
            size: number;
            /** @description Signed download URL, valid 60 seconds. */
            url: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            url_expires_at: string;
        };
        /** @description The autoresponder does not answer this submission. */
        SkipAutoresponderAction: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "SkipAutoresponderAction";
        };
        /** @description The form's notification e-mail is not sent (a rule's own `notify` still is). */
        SkipNotificationsAction: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "SkipNotificationsAction";
        };
        Stage: {
            /** @description 1–32 characters of a-z, 0-9 and `_`. */
            key: string;
            label: string;
            /**
             * @description Work on a submission in this stage is finished.
             * @default false
             */
            done: boolean;
        };
        StageAction: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "StageAction";
            /** @description A key of the form's stages. */
            to: string;
        };
        StageCount: {
            key: string;
            label: string;
            done: boolean;
            /** @description Submissions in the inbox (not spam) in this stage. */
            count: number;
        };
        StreamedSubmission: {
            /** @description The event id: send it back (`Last-Event-ID` or `last_event_id`) to resume right after this event. */
            id: string;
            /**
             * @description `submission`: a clean submission, once processed. `spam`: one filed as spam (only with `include=spam`).
             * @enum {string}
             */
            event: "submission" | "spam";
            submission: components["schemas"]["SubmissionCreatedEvent"];
        };
        Submission: {
            /** @description Prefix `subm_`. */
            id: string;
            status: components["schemas"]["SubmissionStatus"];
            /** @description Why it is spam: honeypot_filled, rate_limited, rule:<kind>, captcha_unverified (the CAPTCHA provider could not be reached), ai_moderation. */
            spam_reason: string | null;
            category: string | null;
            ai_moderation: components["schemas"]["AiModeration"] | null;
            /** @description The submitted fields. */
            payload: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            received_at: string;
            /** @description Present only if the submission had uploads. */
            files?: components["schemas"]["SubmissionFile"][];
            /** @description In the order they were added. */
            tags: string[];
            /** @description A key of the form's `settings.stages`. */
            stage: string;
            assignee: components["schemas"]["Member"] | null;
            notes_count: number;
            /**
             * Format: date-time
             * @description When it last changed (triage, status, payload or a note).
             */
            updated_at: string;
        };
        SubmissionAccepted: {
            /** @enum {boolean} */
            ok: true;
            /** @description The submission id (`subm_…`); for a repeated `Idempotency-Key`, the first submission's. */
            id: string;
            /** @description Where a browser posting the same form would be sent (303): the `_next` posted, when its origin is allowed, else the form's `redirect_url`; absent when neither applies. The browser helper (`/intake.js`) follows a page's cross-origin `_next` only when it is this. */
            redirect?: string;
        };
        /** @description The `submission.created` webhook body. */
        SubmissionCreatedEvent: {
            /** @enum {string} */
            type: "submission.created";
            /** @description Prefix `subm_`. */
            submission_id: string;
            form_id: string;
            form_name: string;
            /** @description ISO 8601, UTC, milliseconds. */
            received_at: string;
            /** @description The submitted fields. */
            payload: {
                [key: string]: unknown;
            };
            files: {
                id: string;
                filename: string;
                content_type: string;
                /** @description Bytes. */
                size: number;
                /** @description A link valid for 7 days; each visit redirects to a fresh 60-second storage URL. */
                url: string;
            }[];
            meta: {
                category: string | null;
                /** @description Spam likelihood from moderation, 0 to 1; null for spam caught before moderation. */
                score: number | null;
                referrer: string | null;
                user_agent: string | null;
                /**
                 * @description `form`: posted to the public endpoint; `api`: a server-side submit (`POST /v1/forms/{form}/submissions`).
                 * @enum {string}
                 */
                source: "form" | "api";
            };
            /** @description In the order they were added. */
            tags: string[];
            /** @description A key of the form's `settings.stages`. */
            stage: string;
            assignee: components["schemas"]["Member"] | null;
        };
        SubmissionDetail: {
            /** @description Prefix `subm_`. */
            id: string;
            status: components["schemas"]["SubmissionStatus"];
            /** @description Why it is spam: honeypot_filled, rate_limited, rule:<kind>, captcha_unverified (the CAPTCHA provider could not be reached), ai_moderation. */
            spam_reason: string | null;
            category: string | null;
            ai_moderation: components["schemas"]["AiModeration"] | null;
            /** @description The submitted fields. */
            payload: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            received_at: string;
            /** @description In the order they were added. */
            tags: string[];
            /** @description A key of the form's `settings.stages`. */
            stage: string;
            assignee: components["schemas"]["Member"] | null;
            notes_count: number;
            /**
             * Format: date-time
             * @description When it last changed (triage, status, payload or a note).
             */
            updated_at: string;
            form_id: string;
            /** @description The payload with each value recognised and typed. */
            fields: components["schemas"]["ParsedField"][];
            /** @description IP, user agent, referrer, origin and the reserved control fields. */
            metadata: {
                [key: string]: unknown;
            };
            /** @description Present only if the submission had uploads, with signed URLs valid 60 seconds. */
            files?: components["schemas"]["SignedSubmissionFile"][];
            /** @description The autoresponder's outcome: `{ sent_at, to }` or `{ skipped: reason }`; null when none was due (the form had it off, or the post was spam caught at the door and never processed). */
            autoresponse: {
                /**
                 * Format: date-time
                 * @description When it was sent (with `to`).
                 */
                sent_at?: string;
                /** @description The address it was sent to. */
                to?: string;
                /**
                 * @description Why none was sent: spam, no submitter address, an address that is not one, one already sent to it this hour, or a plan without the autoresponder.
                 * @enum {string}
                 */
                skipped?: "spam" | "no_address" | "invalid_address" | "rate_limited" | "plan";
            } | null;
            /**
             * @description `form`: posted to the public endpoint; `api`: a server-side submit (`POST /v1/forms/{form}/submissions`).
             * @enum {string}
             */
            source: "form" | "api";
            /** @description The token of a server-side submit (`tok_…`); null for `form`. */
            api_token_id: string | null;
            /** @description The `ETag` header of this version: send it as `If-Match` to change only this version. */
            etag: string;
            /** @description The form's rules that fired on it when it was processed, in order (empty: none did). */
            rules_applied: components["schemas"]["RuleApplied"][];
        };
        SubmissionEventBatch: {
            /** @description The events after `last_event_id`, oldest first; at most 100. */
            data: components["schemas"]["StreamedSubmission"][];
            meta: {
                /** @description Where this answer ends: pass it as `last_event_id` next time (also when `data` is empty). */
                last_event_id: string;
                /** @description More events are waiting: ask again at once. */
                has_more: boolean;
            };
        };
        SubmissionFile: {
            /** @description Prefix `file_`; the id used in the download path. */
            id: string;
            /** @description The form field the file was posted in. */
            field: string;
            filename: string;
            content_type: string;
            /** @description Bytes. */
            size: number;
        };
        SubmissionPage: {
            data: components["schemas"]["Submission"][];
            links: components["schemas"]["PageLinks"];
            meta: {
                /** @description The page number; null when the page was asked for by `cursor`. */
                current_page: number | null;
                per_page: number;
                total: number;
                last_page: number;
                /** @description A search (`q`) or a triage filter (`tag`, `stage`, `assignee`) counts its matches up to 1,000: true when there are more (then `total` is 1,000; `GET …/tags` and `GET …/stages` count them all). */
                total_capped: boolean;
                /** @description Pass as `cursor` for the next page; null on the last. */
                next_cursor: string | null;
            };
        };
        /** @description The `submission.spam` webhook body: a submission stored as spam (at the door or by moderation), `spam_reason` after `meta`. */
        SubmissionSpamEvent: {
            /** @enum {string} */
            type: "submission.spam";
            /** @description Prefix `subm_`. */
            submission_id: string;
            form_id: string;
            form_name: string;
            /** @description ISO 8601, UTC, milliseconds. */
            received_at: string;
            /** @description The submitted fields. */
            payload: {
                [key: string]: unknown;
            };
            files: {
                id: string;
                filename: string;
                content_type: string;
                /** @description Bytes. */
                size: number;
                /** @description A link valid for 7 days; each visit redirects to a fresh 60-second storage URL. */
                url: string;
            }[];
            meta: {
                category: string | null;
                /** @description Spam likelihood from moderation, 0 to 1; null for spam caught before moderation. */
                score: number | null;
                referrer: string | null;
                user_agent: string | null;
                /**
                 * @description `form`: posted to the public endpoint; `api`: a server-side submit (`POST /v1/forms/{form}/submissions`).
                 * @enum {string}
                 */
                source: "form" | "api";
            };
            /** @description In the order they were added. */
            tags: string[];
            /** @description A key of the form's `settings.stages`. */
            stage: string;
            assignee: components["schemas"]["Member"] | null;
            /** @description Why it was filed as spam: at the door `honeypot_filled`, `rate_limited`, `rule:blocked_email`, `rule:keyword`, `rule:regex`, `captcha_unverified`; by moderation `ai_moderation`. */
            spam_reason: string;
        };
        /** @enum {string} */
        SubmissionStatus: "received" | "spam" | "processed" | "failed";
        /** @description The `submission.updated` webhook body: a person changed a submission's stage, tags or assignee; the submission as it is now, `changes` and `actor` after the triage fields. Notes are never sent. */
        SubmissionUpdatedEvent: {
            /** @enum {string} */
            type: "submission.updated";
            /** @description Prefix `subm_`. */
            submission_id: string;
            form_id: string;
            form_name: string;
            /** @description ISO 8601, UTC, milliseconds. */
            received_at: string;
            /** @description The submitted fields. */
            payload: {
                [key: string]: unknown;
            };
            files: {
                id: string;
                filename: string;
                content_type: string;
                /** @description Bytes. */
                size: number;
                /** @description A link valid for 7 days; each visit redirects to a fresh 60-second storage URL. */
                url: string;
            }[];
            meta: {
                category: string | null;
                /** @description Spam likelihood from moderation, 0 to 1; null for spam caught before moderation. */
                score: number | null;
                referrer: string | null;
                user_agent: string | null;
                /**
                 * @description `form`: posted to the public endpoint; `api`: a server-side submit (`POST /v1/forms/{form}/submissions`).
                 * @enum {string}
                 */
                source: "form" | "api";
            };
            /** @description In the order they were added. */
            tags: string[];
            /** @description A key of the form's `settings.stages`. */
            stage: string;
            assignee: components["schemas"]["Member"] | null;
            changes: components["schemas"]["TriageChanges"];
            /** @description Who made it; null for a change made through a signed link of a notification e-mail or by the form's rules. */
            actor: {
                /** @description Prefix `usr_`. */
                id: string;
                email: string;
                name: string;
                /** @description The API token the change was made with. */
                token: {
                    id: string;
                    name: string;
                } | null;
            } | null;
        };
        /** @description The form's own fields, by name, beside the reserved ones. A name starting with `_` is a control field: kept in the submission's `metadata.controls`, never in its payload. When the form has a field schema, a post that breaks it is refused (422) and fields the schema does not name are kept, dropped or refused as its `unknown_fields` says. The body must be one object, at most 1 MB, nested at most 5 levels, with at most 2000 values in all (fields, list items, nested values). */
        SubmitFormBody: {
            /** @description The sender's address: the notification e-mail's Reply-To and the autoresponder's recipient, checked against the form's blocked e-mails. */
            _replyto?: string;
            /** @description The notification e-mail's subject (its first 200 characters). */
            _subject?: string;
            /** @description Where a browser goes after posting (303), instead of the form's `redirect_url` or the thank-you page — followed only when its origin is the posting page's, the `redirect_url`'s or one of the form's `allowed_origins`. */
            _next?: string;
            /** @description The honeypot: leave it empty, in an input people do not see. A post that fills it is kept as spam (`honeypot_filled`) and answered as any other. `_gotcha` unless the form's `settings.honeypot_field` names another `_…` field. */
            _gotcha?: string;
            /** @description The Cloudflare Turnstile widget's token, verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "cf-turnstile-response"?: string;
            /** @description The hCaptcha widget's token, verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "h-captcha-response"?: string;
            /** @description The reCAPTCHA (v2 or v3) widget's token (hCaptcha fills it too), verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "g-recaptcha-response"?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description The form's own fields, by name, beside the reserved ones. A name starting with `_` is a control field: kept in the submission's `metadata.controls`, never in its payload. When the form has a field schema, a post that breaks it is refused (422) and fields the schema does not name are kept, dropped or refused as its `unknown_fields` says. At most 200 names and 2000 parts (values and files). A part with a filename is a file: at most 10 files of at most 10 MB each, and only when the team's plan includes uploads (402 otherwise); a file input left empty is no upload. Every part needs `Content-Disposition: form-data` with a name. */
        SubmitFormMultipartBody: {
            /** @description The sender's address: the notification e-mail's Reply-To and the autoresponder's recipient, checked against the form's blocked e-mails. */
            _replyto?: string;
            /** @description The notification e-mail's subject (its first 200 characters). */
            _subject?: string;
            /** @description Where a browser goes after posting (303), instead of the form's `redirect_url` or the thank-you page — followed only when its origin is the posting page's, the `redirect_url`'s or one of the form's `allowed_origins`. */
            _next?: string;
            /** @description The honeypot: leave it empty, in an input people do not see. A post that fills it is kept as spam (`honeypot_filled`) and answered as any other. `_gotcha` unless the form's `settings.honeypot_field` names another `_…` field. */
            _gotcha?: string;
            /** @description The Cloudflare Turnstile widget's token, verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "cf-turnstile-response"?: string;
            /** @description The hCaptcha widget's token, verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "h-captcha-response"?: string;
            /** @description The reCAPTCHA (v2 or v3) widget's token (hCaptcha fills it too), verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "g-recaptcha-response"?: string;
        } & {
            [key: string]: string | (string)[];
        };
        /** @description The form's own fields, by name, beside the reserved ones. A name starting with `_` is a control field: kept in the submission's `metadata.controls`, never in its payload. When the form has a field schema, a post that breaks it is refused (422) and fields the schema does not name are kept, dropped or refused as its `unknown_fields` says. A name sent more than once is kept as a list of its values, in order. At most 200 names and 2000 values, 1 MB in all. */
        SubmitFormUrlencodedBody: {
            /** @description The sender's address: the notification e-mail's Reply-To and the autoresponder's recipient, checked against the form's blocked e-mails. */
            _replyto?: string;
            /** @description The notification e-mail's subject (its first 200 characters). */
            _subject?: string;
            /** @description Where a browser goes after posting (303), instead of the form's `redirect_url` or the thank-you page — followed only when its origin is the posting page's, the `redirect_url`'s or one of the form's `allowed_origins`. */
            _next?: string;
            /** @description The honeypot: leave it empty, in an input people do not see. A post that fills it is kept as spam (`honeypot_filled`) and answered as any other. `_gotcha` unless the form's `settings.honeypot_field` names another `_…` field. */
            _gotcha?: string;
            /** @description The Cloudflare Turnstile widget's token, verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "cf-turnstile-response"?: string;
            /** @description The hCaptcha widget's token, verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "h-captcha-response"?: string;
            /** @description The reCAPTCHA (v2 or v3) widget's token (hCaptcha fills it too), verified with the provider when the form has that CAPTCHA; never stored, whatever the form. */
            "g-recaptcha-response"?: string;
        } & {
            [key: string]: string | string[];
        };
        SuggestedSchema: {
            data: {
                /** @description The form's field schema, in column order; empty = no schema (any field is kept as posted). */
                fields: components["schemas"]["SchemaFieldView"][];
                unknown_fields: components["schemas"]["UnknownFields"];
            };
            meta: {
                /** @description How many recent inbox submissions were read (at most 1,000). */
                sampled: number;
            };
        };
        TagAction: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "TagAction";
            /** @description Tags added to the submission. */
            add: string[];
        };
        TagCount: {
            tag: string;
            /** @description Submissions in the inbox (not spam) with this tag. */
            count: number;
        };
        TestRulesResponse: {
            data: components["schemas"]["TestRulesResult"];
        };
        TestRulesResult: {
            /**
             * @description The event the rules ran for: `submission.spam` for a spam submission.
             * @enum {string}
             */
            event: "submission.created" | "submission.spam";
            /** @description The ids of the rules that fired, in order. */
            fired: string[];
            /** @description What they would do, in order: each action with the rule it is of. */
            actions: {
                rule_id: string;
                action: components["schemas"]["RuleAction"];
            }[];
            trace: components["schemas"]["RuleTrace"][];
        };
        /** @description The body of a test event: a `submission.created` body with `test: true` after `meta`. */
        TestSubmissionCreatedEvent: {
            /** @enum {string} */
            type: "submission.created";
            /** @description Prefix `subm_`. */
            submission_id: string;
            form_id: string;
            form_name: string;
            /** @description ISO 8601, UTC, milliseconds. */
            received_at: string;
            /** @description The submitted fields. */
            payload: {
                [key: string]: unknown;
            };
            files: {
                id: string;
                filename: string;
                content_type: string;
                /** @description Bytes. */
                size: number;
                /** @description A link valid for 7 days; each visit redirects to a fresh 60-second storage URL. */
                url: string;
            }[];
            meta: {
                category: string | null;
                /** @description Spam likelihood from moderation, 0 to 1; null for spam caught before moderation. */
                score: number | null;
                referrer: string | null;
                user_agent: string | null;
                /**
                 * @description `form`: posted to the public endpoint; `api`: a server-side submit (`POST /v1/forms/{form}/submissions`).
                 * @enum {string}
                 */
                source: "form" | "api";
            };
            /** @description In the order they were added. */
            tags: string[];
            /** @description A key of the form's `settings.stages`. */
            stage: string;
            assignee: components["schemas"]["Member"] | null;
            /**
             * @description Only on a test event: the body is a sample (or a past submission sent again), not a new submission.
             * @enum {boolean}
             */
            test: true;
        };
        TestWebhookResponse: {
            data: components["schemas"]["Delivery"];
        };
        Token: {
            /** @description Prefix `tok_`; the identifier used in paths. */
            id: string;
            name: string;
            abilities: components["schemas"]["Ability"][];
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
            /** @description Last four characters of the plaintext token. */
            last4: string;
            /**
             * Format: date-time
             * @description When the token stops working (401 from then on); null: it never expires.
             */
            expires_at: string | null;
        };
        TokenListEntry: {
            /** @description Prefix `tok_`; the identifier used in paths. */
            id: string;
            name: string;
            abilities: components["schemas"]["Ability"][];
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
            /** @description Last four characters of the plaintext token. */
            last4: string;
            /**
             * Format: date-time
             * @description When the token stops working (401 from then on); null: it never expires.
             */
            expires_at: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            last_used_at: string | null;
        };
        /** @description What changed: only the fields that did. */
        TriageChanges: {
            stage?: {
                from: string;
                to: string;
            };
            tags?: {
                added: string[];
                removed: string[];
            };
            assignee?: {
                from: components["schemas"]["Member"] | null;
                to: components["schemas"]["Member"] | null;
            };
        };
        /** @description A post whose values of all the rule's fields equal those of a clean submission kept within the window is refused (409 `duplicate_submission`). A post with all of them empty is not checked. Spam and deleted submissions hold no values. */
        UniqueRule: {
            /** @description The fields whose values, together, may be submitted once (1–3 names). */
            fields: string[];
            /**
             * @description How values are compared: `text` (default) trims, collapses inner whitespace and ignores case; `email` trims and ignores case; `exact` compares as sent.
             * @default text
             * @enum {string}
             */
            normalize: "text" | "exact" | "email";
            /**
             * @description Days a submission holds its values; null (default) = for ever.
             * @default null
             */
            window_days: number | null;
            /**
             * @description What the submitter is told (409); null = a default message.
             * @default null
             */
            message: string | null;
        };
        /**
         * @description Fields the schema does not name: `keep` them (default), `drop` them, or `reject` the post (422).
         * @enum {string}
         */
        UnknownFields: "keep" | "drop" | "reject";
        UnpublishFormResponse: {
            data: components["schemas"]["Form"];
        };
        /** @description The body is not urlencoded, multipart or JSON. */
        UnsupportedMediaTypeBody: {
            /**
             * @description Machine-readable error code.
             * @enum {string}
             */
            error: "unsupported_media_type";
            /** @description Human-readable explanation. */
            message: string;
        };
        UpdateFormResponse: {
            data: components["schemas"]["Form"];
        };
        UpdateRuleResponse: {
            data: components["schemas"]["Rule"];
        };
        UpdateSubmissionBody: {
            /** @description Merged shallowly: omitted keys stay, a key set to null is removed. */
            payload?: {
                [key: string]: unknown;
            };
            status?: components["schemas"]["SubmissionStatus"];
            /** @description Replaces the tags. */
            tags?: string[];
            /** @description Added after the current tags (ones already there are kept in place). */
            add_tags?: string[];
            remove_tags?: string[];
            /** @description A key of the form's stages. */
            stage?: string;
            /** @description A member of the team (`usr_…`); null unassigns. */
            assignee_id?: string | null;
        };
        UpdateSubmissionResponse: {
            data: components["schemas"]["SubmissionDetail"];
        };
        UpdateWebhookBody: {
            label?: string;
            /** @description HTTPS only; hosts that resolve to private or reserved addresses are refused. */
            url?: string;
            provider?: components["schemas"]["Provider"];
            /** @description Provider settings, each a string. slack: `channel`, `username`, `icon_emoji`; discord: `username`, `avatar_url`; teams, zapier, make, webhook: none. Unknown keys are refused. */
            config?: {
                [key: string]: string;
            };
            /** @description Events delivered; default `["submission.created"]`. `[]`: only the submissions a rule sends to it (a `webhook` action). */
            events?: components["schemas"]["WebhookEvent"][];
            /** @description Replaces the filter; `[]` removes it. */
            filter?: components["schemas"]["WebhookFilterCondition"][];
            /** @description Replaces the pace; null: the provider's default. */
            max_per_second?: number | null;
            /** @description Replaces the template; null: the default event JSON again. */
            body_template?: string | null;
            /**
             * @description How `body_template` is read and sent: `json` (application/json, the default), `form` (application/x-www-form-urlencoded) or `text` (text/plain; charset=utf-8). Without a template the default JSON is sent.
             * @enum {string}
             */
            content_type?: "json" | "form" | "text";
            /** @description Replaces the extra headers; `{}` removes them. */
            headers?: {
                [key: string]: string;
            };
            /** @description `true` reactivates a webhook the service deactivated. */
            active?: boolean;
            /** @description Issue a new secret (returned once); the old one keeps signing for 24 hours. */
            rotate_secret?: boolean;
        };
        UpdateWebhookResponse: {
            data: components["schemas"]["Webhook"];
            /** @description The new signing secret, only with `rotate_secret: true`. */
            secret?: string;
        };
        ValidationErrorBody: {
            error: ("validation_failed" | "invalid_json") | string;
            message: string;
            details?: {
                /** @enum {string} */
                in: "body" | "query" | "path" | "header";
                path: string;
                message: string;
            }[];
        };
        Webhook: {
            /** @description Prefix `wh_`. */
            id: string;
            form_id: string;
            label: string;
            provider: components["schemas"]["Provider"];
            /** @description HTTPS endpoint the deliveries are posted to. */
            url: string;
            /** @description Inactive webhooks get no new deliveries and their pending retries stop. */
            active: boolean;
            /** @description Why the service deactivated it: `gone` (the receiver answered 410) or `failing` (every attempt failed for 5 days). */
            deactivated_reason: string | null;
            /** @description Provider settings, each a string. slack: `channel`, `username`, `icon_emoji`; discord: `username`, `avatar_url`; teams, zapier, make, webhook: none. Unknown keys are refused. */
            config: {
                [key: string]: string;
            };
            events: components["schemas"]["WebhookEvent"][];
            /** @description Conditions that must all hold for a submission event to be delivered (at most 10); empty: every submission. The condition grammar of per-form rules: text ops compare case-insensitively (a list field: any of its items; `not_equals`, `not_contains`, `not_in`: none of them), `gt` / `gte` / `lt` / `lte` compare numbers, `in` / `not_in` take a list, `matches` an RE2 pattern, `exists` / `not_exists` no value. A submission that does not match creates no delivery. Not applied to `ai-insights.regenerated` nor `form.closed`. */
            filter: components["schemas"]["WebhookFilterCondition"][];
            /** @description At most this many deliveries a second to this webhook, across every worker (0.5–100). Unset (null): slack 1, discord 0.5, teams 4 (their documented limits), other providers unpaced. A receiver's 429 with `Retry-After` pauses the whole webhook until then, without spending an attempt. */
            max_per_second: number | null;
            /** @description A Liquid template of the body of submission events (`submission.created`, `submission.spam`, `submission.updated`), at most 10,000 characters; provider `webhook` only. Only `{{ … }}` placeholders (no `{% … %}` tag) with the filters `default`, `lower`, `upper`, `truncate`, `json` and `join`. They read each payload field (`{{ email }}`, `{{ ["first name"] }}`, also `{{ fields.email }}`), `form.id`, `form.name`, `submission.id`, `submission.received_at`, `submission.category`, `submission.source`, `submission.event`, `submission.tags`, `submission.stage`, `submission.referrer`, `submission.spam_reason`. With `content_type` `json` it is a JSON object whose string values are templates (a string that is exactly one placeholder keeps the value's JSON type); `form`: a JSON object of field → template, sent urlencoded; `text`: a text template. Null: the default event JSON. Test calls, `form.closed` and `ai-insights.regenerated` always send the default body. */
            body_template: string | null;
            /**
             * @description How `body_template` is read and sent: `json` (application/json, the default), `form` (application/x-www-form-urlencoded) or `text` (text/plain; charset=utf-8). Without a template the default JSON is sent.
             * @enum {string}
             */
            content_type: "json" | "form" | "text";
            /** @description Extra request headers sent with every delivery and test call (at most 10; provider `webhook` only), e.g. `{"Authorization": "Bearer …"}`. Names are HTTP tokens; values at most 1,000 visible ASCII characters, no line breaks. Refused names (any case): host, content-length, content-type, transfer-encoding, connection, keep-alive, upgrade, expect, te, trailer, user-agent, and names starting with webhook-, x-service-, proxy-. Values are stored as given and shown to whoever can read the webhook. */
            headers: {
                [key: string]: string;
            };
            /** @description Last four characters of the signing secret. */
            secret_last4: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 timestamp in UTC.
             */
            updated_at: string;
            /**
             * Format: date-time
             * @description When it was deleted: a deleted webhook gets no new deliveries, but stays readable by id (with its delivery log) while its retries already scheduled run out.
             */
            deleted_at: string | null;
        };
        WebhookAction: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "WebhookAction";
            /** @description A webhook of the same form (`wh_…`): the submission is delivered to it (signed, retried and logged as any delivery), whatever its events and filter. A webhook with `events: []` receives only such deliveries. */
            webhook_id: string;
        };
        /**
         * @description `submission.created`: a clean submission, once processed. `submission.spam`: a submission stored as spam (at the door or by moderation; not one a person marked spam). `submission.updated`: a person changed a submission's stage, tags or assignee. `ai-insights.regenerated`: the team's weekly insights were (re)computed. `form.closed`: the form reached its `max_submissions` and takes no more posts.
         * @enum {string}
         */
        WebhookEvent: "submission.created" | "submission.spam" | "submission.updated" | "ai-insights.regenerated" | "form.closed";
        /** @description One condition of a webhook filter. Text compares case-insensitively: equals, contains, starts_with, ends_with as their names say; in: equals one of the list. On a list field, a positive op holds when any item does; not_equals, not_contains and not_in hold when the positive op does not (no item equals, contains or is in the list), so they hold on a missing field too. gt, gte, lt, lte compare numbers: the field must be a number or a string that is one once trimmed, otherwise the condition does not hold. exists: the field is present and not empty or blank; not_exists: the opposite. matches: the RE2 pattern is found anywhere in the text, case-insensitive. */
        WebhookFilterCondition: {
            /** @description A payload field name, or one of `@category` (the AI category), `@ai_score` (the AI spam score, 0 to 1), `@spam_reason`, `@referrer` (the page's URL), `@source` (`form` or `api`): the submission's own; `category` (the same as `@category`) and `status` (`processed` or `spam`) also name the submission's own. */
            field: string;
            /** @enum {string} */
            op: "equals" | "not_equals" | "contains" | "not_contains" | "starts_with" | "ends_with" | "in" | "not_in" | "gt" | "gte" | "lt" | "lte" | "exists" | "not_exists" | "matches";
            /** @description By op: a string (at most 1000 characters) for equals, not_equals, contains, not_contains, starts_with, ends_with; a list of 1–50 strings for in, not_in; a number (or a numeric string) for gt, gte, lt, lte; an RE2 pattern of at most 200 characters for matches (no backreferences nor lookaround; at most 500 instructions once compiled, so no large repeat counts); none for exists, not_exists. */
            value?: string | number | string[];
        };
        WebhookPreview: {
            /** @description The media type of the body. */
            content_type: string;
            /** @description The headers of the request besides those made when it is sent (the signature headers, User-Agent): `content-type` and the extra headers. */
            headers: {
                [key: string]: string;
            };
            /** @description The body, exactly as it would be sent. */
            body: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: {
        CreateFormBody: {
            content: {
                "application/json": {
                    name: string;
                    /**
                     * @description At most 10 addresses notified of each clean submission.
                     * @default []
                     */
                    notification_emails?: string[];
                    settings?: {
                        /** @description Where browsers go after a post (303): an absolute http(s) URL; null = built-in thank-you page. */
                        redirect_url?: string | null;
                        /** @description Hidden field bots fill in; default `_gotcha`. */
                        honeypot_field?: string;
                        /** @description Origins allowed by CORS and as `_next` redirect hosts; empty = any origin. */
                        allowed_origins?: string[];
                        /** @description AI spam score at or above which a submission is spam; default 0.75. */
                        ai_threshold?: number;
                        /** @description The form's field schema, in column order; empty = no schema (any field is kept as posted). */
                        fields?: components["schemas"]["SchemaField"][];
                        unknown_fields?: components["schemas"]["UnknownFields"];
                        /** @description Merged with the current retention. */
                        retention?: {
                            /** @description Days a submission is kept (not spam); null = for ever (the plan may cap it). */
                            submissions_days?: number | null;
                            /** @description Days spam is kept; default 30; null = for ever (the plan may cap it). */
                            spam_days?: number | null;
                        };
                        /**
                         * @description `instant`: one e-mail per submission (default); `hourly` / `daily` (08:00 UTC): one digest per period listing its clean submissions, none for an empty period.
                         * @enum {string}
                         */
                        notification_mode?: "instant" | "hourly" | "daily";
                        /** @description Also e-mail the notification addresses about spam, marked as spam with its reason (instant mode); default false. */
                        notify_spam?: boolean;
                        /** @description Up to 5 duplicate rules; default none. */
                        unique?: {
                            /** @description The fields whose values, together, may be submitted once (1–3 names). */
                            fields: string[];
                            /**
                             * @description How values are compared: `text` (default) trims, collapses inner whitespace and ignores case; `email` trims and ignores case; `exact` compares as sent.
                             * @default text
                             * @enum {string}
                             */
                            normalize?: "text" | "exact" | "email";
                            /**
                             * @description Days a submission holds its values; null (default) = for ever.
                             * @default null
                             */
                            window_days?: number | null;
                            /**
                             * @description What the submitter is told (409); null = a default message.
                             * @default null
                             */
                            message?: string | null;
                        }[];
                        /** @description Clean submissions the form keeps before it closes (`limit_reached`); spam and deleted ones do not count. null = no limit. */
                        max_submissions?: number | null;
                        /**
                         * Format: date-time
                         * @description Before this instant the form is closed (`not_yet_open`); null = open now.
                         */
                        opens_at?: string | null;
                        /**
                         * Format: date-time
                         * @description From this instant the form is closed (`closed`); after `opens_at`. null = never.
                         */
                        closes_at?: string | null;
                        /** @description What a closed form tells people (the page a browser is shown, the `message` of the 403); null = a default. */
                        closed_message?: string | null;
                        /** @description Where a browser posting to a closed form is sent (303) instead of the closed page. */
                        closed_redirect_url?: string | null;
                        /** @description Up to 20 stages, keys unique; new submissions get the first. Default New (`new`), In progress (`in_progress`), Done (`done`, done). Removing a stage that submissions are in needs `reassign_stages` in the same update. */
                        stages?: {
                            /** @description 1–32 characters of a-z, 0-9 and `_`. */
                            key: string;
                            label: string;
                            /**
                             * @description Work on a submission in this stage is finished.
                             * @default false
                             */
                            done?: boolean;
                        }[];
                        custom_rules?: {
                            /** @description Addresses (`a@b.com`) or whole domains (`@b.com`) whose submissions are spam. */
                            blocked_emails?: string[];
                            /** @description Case-insensitive words or phrases that mark spam. */
                            keywords?: string[];
                            /** @description Case-insensitive regular expressions that mark spam, in RE2 syntax (linear-time: no backreferences or lookaround), matched against the first 8,000 characters of the submission text (fewer with more than 4 rules: 32,000 ÷ rules). */
                            regex?: string[];
                        };
                        captcha?: {
                            /** @enum {string} */
                            provider: "turnstile" | "hcaptcha" | "recaptcha_v2" | "recaptcha_v3";
                            /** @description The provider's secret key; may be left out to keep the stored one when the provider is unchanged. */
                            secret_key?: string;
                            /** @description reCAPTCHA v3 only: the least score accepted; default 0.5. */
                            min_score?: number;
                        } | null;
                        /** @description Merged with the current autoresponder. */
                        autoresponder?: components["schemas"]["AutoresponderInput"];
                    };
                };
            };
        };
        CreateRuleBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @default true */
                    enabled?: boolean;
                    /**
                     * @description Which submissions the rule runs on: clean ones (default) or spam.
                     * @default submission.created
                     * @enum {string}
                     */
                    on?: "submission.created" | "submission.spam";
                    /**
                     * @default {
                     *       "all": []
                     *     }
                     */
                    when?: components["schemas"]["RuleWhen"];
                    actions: ({
                        /** @enum {string} */
                        type: "notify";
                        /** @description 1–10 addresses sent the notification e-mail (confirmed like the form's own when the team confirms addresses). */
                        to: string[];
                        /** @description A template for the subject (`{{ field }}`, `{{ form.name }}`, filters); default: the usual subject. */
                        subject?: string;
                        /**
                         * @description When true, the form's own notification addresses are not mailed for a submission this rule fires on.
                         * @default false
                         */
                        replace_default?: boolean;
                    } | components["schemas"]["WebhookAction"] | components["schemas"]["TagAction"] | components["schemas"]["StageAction"] | components["schemas"]["AssignAction"] | components["schemas"]["MoveToSpamAction"] | components["schemas"]["SkipNotificationsAction"] | components["schemas"]["SkipAutoresponderAction"])[];
                    /** @default false */
                    stop?: boolean;
                    /** @default false */
                    fallback?: boolean;
                    /** @description Where it goes (the rules from there move down one); default: last. */
                    position?: number;
                };
            };
        };
        CreateWebhookBody: {
            content: {
                "application/json": {
                    label: string;
                    /** @description HTTPS only; hosts that resolve to private or reserved addresses are refused. */
                    url: string;
                    /** @default webhook */
                    provider?: components["schemas"]["Provider"];
                    /**
                     * @description Provider settings, each a string. slack: `channel`, `username`, `icon_emoji`; discord: `username`, `avatar_url`; teams, zapier, make, webhook: none. Unknown keys are refused.
                     * @default {}
                     */
                    config?: {
                        [key: string]: string;
                    };
                    /**
                     * @description Events delivered; default `["submission.created"]`. `[]`: only the submissions a rule sends to it (a `webhook` action).
                     * @default [
                     *       "submission.created"
                     *     ]
                     */
                    events?: components["schemas"]["WebhookEvent"][];
                    /** @description Default: none (every submission). */
                    filter?: components["schemas"]["WebhookFilterCondition"][];
                    /** @description At most this many deliveries a second to this webhook, across every worker (0.5–100). Unset (null): slack 1, discord 0.5, teams 4 (their documented limits), other providers unpaced. A receiver's 429 with `Retry-After` pauses the whole webhook until then, without spending an attempt. */
                    max_per_second?: number | null;
                    /** @description Default: none (the default event JSON). */
                    body_template?: string | null;
                    /**
                     * @description Default: `json`.
                     * @enum {string}
                     */
                    content_type?: "json" | "form" | "text";
                    /** @description Default: none. */
                    headers?: {
                        [key: string]: string;
                    };
                    /** @default true */
                    active?: boolean;
                };
            };
        };
        ErasureBody: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description Erase every submission in which this address appears (case ignored).
                     */
                    email?: string;
                    /** @description Erase every submission in which this exact value appears, as a whole field or inside text. */
                    value?: string;
                    /**
                     * @description Answer at once (200) with what a real run would erase now, and erase nothing: no job, no receipt, the value is not kept.
                     * @default false
                     */
                    dry_run?: boolean;
                };
            };
        };
        TestRulesBody: {
            content: {
                "application/json": {
                    /** @description A submission of the form to run the rules on. */
                    submission_id?: string;
                    /** @description Or a payload as posted (the `@` fields are then those of a clean post: no category, no score). */
                    payload?: {
                        [key: string]: unknown;
                    };
                    /** @description Rules to try instead of the form's saved ones (nothing is saved). */
                    rules?: {
                        name: string;
                        /** @default true */
                        enabled?: boolean;
                        /**
                         * @description Which submissions the rule runs on: clean ones (default) or spam.
                         * @default submission.created
                         * @enum {string}
                         */
                        on?: "submission.created" | "submission.spam";
                        /**
                         * @default {
                         *       "all": []
                         *     }
                         */
                        when?: components["schemas"]["RuleWhen"];
                        actions: ({
                            /** @enum {string} */
                            type: "notify";
                            /** @description 1–10 addresses sent the notification e-mail (confirmed like the form's own when the team confirms addresses). */
                            to: string[];
                            /** @description A template for the subject (`{{ field }}`, `{{ form.name }}`, filters); default: the usual subject. */
                            subject?: string;
                            /**
                             * @description When true, the form's own notification addresses are not mailed for a submission this rule fires on.
                             * @default false
                             */
                            replace_default?: boolean;
                        } | components["schemas"]["WebhookAction"] | components["schemas"]["TagAction"] | components["schemas"]["StageAction"] | components["schemas"]["AssignAction"] | components["schemas"]["MoveToSpamAction"] | components["schemas"]["SkipNotificationsAction"] | components["schemas"]["SkipAutoresponderAction"])[];
                        /** @default false */
                        stop?: boolean;
                        /** @default false */
                        fallback?: boolean;
                        /** @description Named in the trace; default `draft_<n>`. */
                        id?: string;
                    }[];
                };
            };
        };
        UpdateFormBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @description At most 10 addresses notified of each clean submission. */
                    notification_emails?: string[];
                    settings?: {
                        /** @description Where browsers go after a post (303): an absolute http(s) URL; null = built-in thank-you page. */
                        redirect_url?: string | null;
                        /** @description Hidden field bots fill in; default `_gotcha`. */
                        honeypot_field?: string;
                        /** @description Origins allowed by CORS and as `_next` redirect hosts; empty = any origin. */
                        allowed_origins?: string[];
                        /** @description AI spam score at or above which a submission is spam; default 0.75. */
                        ai_threshold?: number;
                        /** @description The form's field schema, in column order; empty = no schema (any field is kept as posted). */
                        fields?: components["schemas"]["SchemaField"][];
                        unknown_fields?: components["schemas"]["UnknownFields"];
                        /** @description Merged with the current retention. */
                        retention?: {
                            /** @description Days a submission is kept (not spam); null = for ever (the plan may cap it). */
                            submissions_days?: number | null;
                            /** @description Days spam is kept; default 30; null = for ever (the plan may cap it). */
                            spam_days?: number | null;
                        };
                        /**
                         * @description `instant`: one e-mail per submission (default); `hourly` / `daily` (08:00 UTC): one digest per period listing its clean submissions, none for an empty period.
                         * @enum {string}
                         */
                        notification_mode?: "instant" | "hourly" | "daily";
                        /** @description Also e-mail the notification addresses about spam, marked as spam with its reason (instant mode); default false. */
                        notify_spam?: boolean;
                        /** @description Up to 5 duplicate rules; default none. */
                        unique?: {
                            /** @description The fields whose values, together, may be submitted once (1–3 names). */
                            fields: string[];
                            /**
                             * @description How values are compared: `text` (default) trims, collapses inner whitespace and ignores case; `email` trims and ignores case; `exact` compares as sent.
                             * @default text
                             * @enum {string}
                             */
                            normalize?: "text" | "exact" | "email";
                            /**
                             * @description Days a submission holds its values; null (default) = for ever.
                             * @default null
                             */
                            window_days?: number | null;
                            /**
                             * @description What the submitter is told (409); null = a default message.
                             * @default null
                             */
                            message?: string | null;
                        }[];
                        /** @description Clean submissions the form keeps before it closes (`limit_reached`); spam and deleted ones do not count. null = no limit. */
                        max_submissions?: number | null;
                        /**
                         * Format: date-time
                         * @description Before this instant the form is closed (`not_yet_open`); null = open now.
                         */
                        opens_at?: string | null;
                        /**
                         * Format: date-time
                         * @description From this instant the form is closed (`closed`); after `opens_at`. null = never.
                         */
                        closes_at?: string | null;
                        /** @description What a closed form tells people (the page a browser is shown, the `message` of the 403); null = a default. */
                        closed_message?: string | null;
                        /** @description Where a browser posting to a closed form is sent (303) instead of the closed page. */
                        closed_redirect_url?: string | null;
                        /** @description Up to 20 stages, keys unique; new submissions get the first. Default New (`new`), In progress (`in_progress`), Done (`done`, done). Removing a stage that submissions are in needs `reassign_stages` in the same update. */
                        stages?: {
                            /** @description 1–32 characters of a-z, 0-9 and `_`. */
                            key: string;
                            label: string;
                            /**
                             * @description Work on a submission in this stage is finished.
                             * @default false
                             */
                            done?: boolean;
                        }[];
                        custom_rules?: {
                            /** @description Addresses (`a@b.com`) or whole domains (`@b.com`) whose submissions are spam. */
                            blocked_emails?: string[];
                            /** @description Case-insensitive words or phrases that mark spam. */
                            keywords?: string[];
                            /** @description Case-insensitive regular expressions that mark spam, in RE2 syntax (linear-time: no backreferences or lookaround), matched against the first 8,000 characters of the submission text (fewer with more than 4 rules: 32,000 ÷ rules). */
                            regex?: string[];
                        };
                        captcha?: {
                            /** @enum {string} */
                            provider: "turnstile" | "hcaptcha" | "recaptcha_v2" | "recaptcha_v3";
                            /** @description The provider's secret key; may be left out to keep the stored one when the provider is unchanged. */
                            secret_key?: string;
                            /** @description reCAPTCHA v3 only: the least score accepted; default 0.5. */
                            min_score?: number;
                        } | null;
                        /** @description Merged with the current autoresponder. */
                        autoresponder?: components["schemas"]["AutoresponderInput"];
                    };
                    /** @description Where the submissions of each removed stage go: `{ "<removed key>": "<kept key>" }`. */
                    reassign_stages?: {
                        [key: string]: string;
                    };
                };
            };
        };
        UpdateRuleBody: {
            content: {
                "application/json": {
                    name?: string;
                    enabled?: boolean;
                    /**
                     * @description Which submissions the rule runs on: clean ones (default) or spam.
                     * @enum {string}
                     */
                    on?: "submission.created" | "submission.spam";
                    when?: components["schemas"]["RuleWhen"];
                    actions?: ({
                        /** @enum {string} */
                        type: "notify";
                        /** @description 1–10 addresses sent the notification e-mail (confirmed like the form's own when the team confirms addresses). */
                        to: string[];
                        /** @description A template for the subject (`{{ field }}`, `{{ form.name }}`, filters); default: the usual subject. */
                        subject?: string;
                        /**
                         * @description When true, the form's own notification addresses are not mailed for a submission this rule fires on.
                         * @default false
                         */
                        replace_default?: boolean;
                    } | components["schemas"]["WebhookAction"] | components["schemas"]["TagAction"] | components["schemas"]["StageAction"] | components["schemas"]["AssignAction"] | components["schemas"]["MoveToSpamAction"] | components["schemas"]["SkipNotificationsAction"] | components["schemas"]["SkipAutoresponderAction"])[];
                    stop?: boolean;
                    fallback?: boolean;
                };
            };
        };
    };
    headers: {
        /** @description The budget left in this window: `limit=<requests>, remaining=<requests>, reset=<seconds>`. */
        RateLimit: string;
        /** @description The budget of this token: `<requests>;w=<window seconds>`. */
        "RateLimit-Policy": string;
        /** @description Seconds until the window resets. */
        "Retry-After": number;
    };
    pathItems: never;
}
export type Ability = components['schemas']['Ability'];
export type AbilityExceedsCallerBody = components['schemas']['AbilityExceedsCallerBody'];
export type ActivityEntry = components['schemas']['ActivityEntry'];
export type AiModeration = components['schemas']['AiModeration'];
export type AlreadyRunningBody = components['schemas']['AlreadyRunningBody'];
export type AssignAction = components['schemas']['AssignAction'];
export type AutoresponderInput = components['schemas']['AutoresponderInput'];
export type BillingPlan = components['schemas']['BillingPlan'];
export type BillingSubscription = components['schemas']['BillingSubscription'];
export type BillingTeam = components['schemas']['BillingTeam'];
export type BillingUsage = components['schemas']['BillingUsage'];
export type BulkBody = components['schemas']['BulkBody'];
export type BulkResult = components['schemas']['BulkResult'];
export type CaptchaFailedBody = components['schemas']['CaptchaFailedBody'];
export type Condition = components['schemas']['Condition'];
export type ConditionTrace = components['schemas']['ConditionTrace'];
export type CreateErasure200Response = components['schemas']['CreateErasure200Response'];
export type CreateErasure202Response = components['schemas']['CreateErasure202Response'];
export type CreateFormResponse = components['schemas']['CreateFormResponse'];
export type CreateNoteBody = components['schemas']['CreateNoteBody'];
export type CreateRuleResponse = components['schemas']['CreateRuleResponse'];
export type CreateSubmission403Error = components['schemas']['CreateSubmission403Error'];
export type CreateSubmission409Error = components['schemas']['CreateSubmission409Error'];
export type CreateSubmissionBody = components['schemas']['CreateSubmissionBody'];
export type CreateSubmissionMultipartBody = components['schemas']['CreateSubmissionMultipartBody'];
export type CreateSubmissionNoteResponse = components['schemas']['CreateSubmissionNoteResponse'];
export type CreateSubmissionResponse = components['schemas']['CreateSubmissionResponse'];
export type CreateToken403Error = components['schemas']['CreateToken403Error'];
export type CreateTokenBody = components['schemas']['CreateTokenBody'];
export type CreateTokenResponse = components['schemas']['CreateTokenResponse'];
export type CreateWebhookResponse = components['schemas']['CreateWebhookResponse'];
export type CustomRules = components['schemas']['CustomRules'];
export type DeleteSubmissionNoteResponse = components['schemas']['DeleteSubmissionNoteResponse'];
export type Delivery = components['schemas']['Delivery'];
export type DeliveryPage = components['schemas']['DeliveryPage'];
export type DeliveryStatus = components['schemas']['DeliveryStatus'];
export type DuplicateSubmissionBody = components['schemas']['DuplicateSubmissionBody'];
export type ErasureDryRun = components['schemas']['ErasureDryRun'];
export type ErasureJobResult = components['schemas']['ErasureJobResult'];
export type ErasureReceipt = components['schemas']['ErasureReceipt'];
export type ErrorBody = components['schemas']['ErrorBody'];
export type ExportSubmissionsResponse = components['schemas']['ExportSubmissionsResponse'];
export type ExportedSubmission = components['schemas']['ExportedSubmission'];
export type FieldErrorsBody = components['schemas']['FieldErrorsBody'];
export type ForbiddenOriginBody = components['schemas']['ForbiddenOriginBody'];
export type Form = components['schemas']['Form'];
export type FormClosedBody = components['schemas']['FormClosedBody'];
export type FormClosedEvent = components['schemas']['FormClosedEvent'];
export type FormField = components['schemas']['FormField'];
export type FormFieldList = components['schemas']['FormFieldList'];
export type FormSettings = components['schemas']['FormSettings'];
export type GetAiInsightsResponse = components['schemas']['GetAiInsightsResponse'];
export type GetBillingPlanResponse = components['schemas']['GetBillingPlanResponse'];
export type GetBillingSubscriptionResponse = components['schemas']['GetBillingSubscriptionResponse'];
export type GetBillingTeamResponse = components['schemas']['GetBillingTeamResponse'];
export type GetBillingUsageResponse = components['schemas']['GetBillingUsageResponse'];
export type GetErasureResponse = components['schemas']['GetErasureResponse'];
export type GetFormResponse = components['schemas']['GetFormResponse'];
export type GetJobResponse = components['schemas']['GetJobResponse'];
export type GetMeResponse = components['schemas']['GetMeResponse'];
export type GetRuleResponse = components['schemas']['GetRuleResponse'];
export type GetSubmissionResponse = components['schemas']['GetSubmissionResponse'];
export type GetWebhookResponse = components['schemas']['GetWebhookResponse'];
export type Insights = components['schemas']['Insights'];
export type InsightsRegeneratedEvent = components['schemas']['InsightsRegeneratedEvent'];
export type Invoice = components['schemas']['Invoice'];
export type Job = components['schemas']['Job'];
export type ListFormStagesResponse = components['schemas']['ListFormStagesResponse'];
export type ListFormTagsResponse = components['schemas']['ListFormTagsResponse'];
export type ListFormsResponse = components['schemas']['ListFormsResponse'];
export type ListInvoicesResponse = components['schemas']['ListInvoicesResponse'];
export type ListRulesResponse = components['schemas']['ListRulesResponse'];
export type ListSubmissionActivityResponse = components['schemas']['ListSubmissionActivityResponse'];
export type ListSubmissionNotesResponse = components['schemas']['ListSubmissionNotesResponse'];
export type ListTokensResponse = components['schemas']['ListTokensResponse'];
export type ListWebhooksResponse = components['schemas']['ListWebhooksResponse'];
export type Me = components['schemas']['Me'];
export type Member = components['schemas']['Member'];
export type MoveToSpamAction = components['schemas']['MoveToSpamAction'];
export type Note = components['schemas']['Note'];
export type NotificationRecipient = components['schemas']['NotificationRecipient'];
export type NotifyAction = components['schemas']['NotifyAction'];
export type OkBody = components['schemas']['OkBody'];
export type OrderRulesBody = components['schemas']['OrderRulesBody'];
export type OrderRulesResponse = components['schemas']['OrderRulesResponse'];
export type PageLinks = components['schemas']['PageLinks'];
export type PageMeta = components['schemas']['PageMeta'];
export type ParsedField = components['schemas']['ParsedField'];
export type PayloadTooLargeBody = components['schemas']['PayloadTooLargeBody'];
export type PlanId = components['schemas']['PlanId'];
export type PostRefusedBody = components['schemas']['PostRefusedBody'];
export type PreviewWebhookBody = components['schemas']['PreviewWebhookBody'];
export type Provider = components['schemas']['Provider'];
export type PruneFormFieldsResponse = components['schemas']['PruneFormFieldsResponse'];
export type PublicNotFoundBody = components['schemas']['PublicNotFoundBody'];
export type PublicPaymentRequiredBody = components['schemas']['PublicPaymentRequiredBody'];
export type PublishFormResponse = components['schemas']['PublishFormResponse'];
export type RateLimitedBody = components['schemas']['RateLimitedBody'];
export type RegenerateAiInsightsResponse = components['schemas']['RegenerateAiInsightsResponse'];
export type ReplayDeliveryByIdResponse = components['schemas']['ReplayDeliveryByIdResponse'];
export type ReplayDeliveryResponse = components['schemas']['ReplayDeliveryResponse'];
export type ReplayWebhookBody = components['schemas']['ReplayWebhookBody'];
export type ReplayWebhookResponse = components['schemas']['ReplayWebhookResponse'];
export type RestoreFormResponse = components['schemas']['RestoreFormResponse'];
export type Retention = components['schemas']['Retention'];
export type Role = components['schemas']['Role'];
export type Rule = components['schemas']['Rule'];
export type RuleAction = components['schemas']['RuleAction'];
export type RuleApplied = components['schemas']['RuleApplied'];
export type RuleTrace = components['schemas']['RuleTrace'];
export type RuleWhen = components['schemas']['RuleWhen'];
export type SchemaField = components['schemas']['SchemaField'];
export type SchemaFieldView = components['schemas']['SchemaFieldView'];
export type SignedSubmissionFile = components['schemas']['SignedSubmissionFile'];
export type SkipAutoresponderAction = components['schemas']['SkipAutoresponderAction'];
export type SkipNotificationsAction = components['schemas']['SkipNotificationsAction'];
export type Stage = components['schemas']['Stage'];
export type StageAction = components['schemas']['StageAction'];
export type StageCount = components['schemas']['StageCount'];
export type StreamedSubmission = components['schemas']['StreamedSubmission'];
export type Submission = components['schemas']['Submission'];
export type SubmissionAccepted = components['schemas']['SubmissionAccepted'];
export type SubmissionCreatedEvent = components['schemas']['SubmissionCreatedEvent'];
export type SubmissionDetail = components['schemas']['SubmissionDetail'];
export type SubmissionEventBatch = components['schemas']['SubmissionEventBatch'];
export type SubmissionFile = components['schemas']['SubmissionFile'];
export type SubmissionPage = components['schemas']['SubmissionPage'];
export type SubmissionSpamEvent = components['schemas']['SubmissionSpamEvent'];
export type SubmissionStatus = components['schemas']['SubmissionStatus'];
export type SubmissionUpdatedEvent = components['schemas']['SubmissionUpdatedEvent'];
export type SubmitFormBody = components['schemas']['SubmitFormBody'];
export type SubmitFormMultipartBody = components['schemas']['SubmitFormMultipartBody'];
export type SubmitFormUrlencodedBody = components['schemas']['SubmitFormUrlencodedBody'];
export type SuggestedSchema = components['schemas']['SuggestedSchema'];
export type TagAction = components['schemas']['TagAction'];
export type TagCount = components['schemas']['TagCount'];
export type TestRulesResponse = components['schemas']['TestRulesResponse'];
export type TestRulesResult = components['schemas']['TestRulesResult'];
export type TestSubmissionCreatedEvent = components['schemas']['TestSubmissionCreatedEvent'];
export type TestWebhookResponse = components['schemas']['TestWebhookResponse'];
export type Token = components['schemas']['Token'];
export type TokenListEntry = components['schemas']['TokenListEntry'];
export type TriageChanges = components['schemas']['TriageChanges'];
export type UniqueRule = components['schemas']['UniqueRule'];
export type UnknownFields = components['schemas']['UnknownFields'];
export type UnpublishFormResponse = components['schemas']['UnpublishFormResponse'];
export type UnsupportedMediaTypeBody = components['schemas']['UnsupportedMediaTypeBody'];
export type UpdateFormResponse = components['schemas']['UpdateFormResponse'];
export type UpdateRuleResponse = components['schemas']['UpdateRuleResponse'];
export type UpdateSubmissionBody = components['schemas']['UpdateSubmissionBody'];
export type UpdateSubmissionResponse = components['schemas']['UpdateSubmissionResponse'];
export type UpdateWebhookBody = components['schemas']['UpdateWebhookBody'];
export type UpdateWebhookResponse = components['schemas']['UpdateWebhookResponse'];
export type ValidationErrorBody = components['schemas']['ValidationErrorBody'];
export type Webhook = components['schemas']['Webhook'];
export type WebhookAction = components['schemas']['WebhookAction'];
export type WebhookEvent = components['schemas']['WebhookEvent'];
export type WebhookFilterCondition = components['schemas']['WebhookFilterCondition'];
export type WebhookPreview = components['schemas']['WebhookPreview'];
export type RequestBodyCreateFormBody = components['requestBodies']['CreateFormBody'];
export type RequestBodyCreateRuleBody = components['requestBodies']['CreateRuleBody'];
export type RequestBodyCreateWebhookBody = components['requestBodies']['CreateWebhookBody'];
export type RequestBodyErasureBody = components['requestBodies']['ErasureBody'];
export type RequestBodyTestRulesBody = components['requestBodies']['TestRulesBody'];
export type RequestBodyUpdateFormBody = components['requestBodies']['UpdateFormBody'];
export type RequestBodyUpdateRuleBody = components['requestBodies']['UpdateRuleBody'];
export type HeaderRateLimit = components['headers']['RateLimit'];
export type HeaderRateLimitPolicy = components['headers']['RateLimit-Policy'];
export type HeaderRetryAfter = components['headers']['Retry-After'];
export type $defs = Record<string, never>;
export interface operations {
    submitForm: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional, at most 255 characters (stored hashed). A post repeating a key this form saw in the last 24 hours stores nothing and answers as the first submission did (its `id`); of two concurrent posts with one key, the first to commit wins. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The form's id (`frm_…`), the last segment of its `endpoint_url`. Any other value answers 404. */
                form: string;
            };
            cookie?: never;
        };
        /** @description The form's fields, as a browser posts them (urlencoded, or multipart with files) or as JSON (also `application/*+json`). */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Ada Lovelace",
                 *       "email": "ada@example.com",
                 *       "message": "Hello!",
                 *       "_subject": "Website enquiry",
                 *       "_gotcha": ""
                 *     }
                 */
                "application/x-www-form-urlencoded": components["schemas"]["SubmitFormUrlencodedBody"];
                "multipart/form-data": components["schemas"]["SubmitFormMultipartBody"];
                /**
                 * @example {
                 *       "name": "Ada Lovelace",
                 *       "email": "ada@example.com",
                 *       "message": "Hello!",
                 *       "_subject": "Website enquiry",
                 *       "_gotcha": ""
                 *     }
                 */
                "application/json": components["schemas"]["SubmitFormBody"];
            };
        };
        responses: {
            /** @description Stored (JSON clients). Spam is answered exactly like this, so a sender cannot tell; a repeated `Idempotency-Key` answers with the first submission's `id`. */
            201: {
                headers: {
                    /** @description When the request's `Origin` may post to the form: that origin, or `*` when the form allows any. */
                    "Access-Control-Allow-Origin"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionAccepted"];
                };
            };
            /** @description Stored (browsers and other non-JSON clients): go to `_next` when it is permitted, else to the form's `redirect_url`, else to the built-in thank-you page `/f/{form}/thanks`, which links back to the posting page. Spam and repeated keys are answered alike. */
            303: {
                headers: {
                    /** @description Where the browser goes next. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The body or a header cannot be read; nothing was stored. `invalid_json` for malformed JSON; `validation_failed` with `details` for a malformed urlencoded or multipart body, invalid UTF-8, NUL characters or unpaired surrogates, an empty or over-long field name, JSON that is not one object or is nested too deeply, a multipart part without a name, an interrupted upload, or an `Idempotency-Key` over 255 characters; `details` `in: "path"` for a malformed percent-escape in the path. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The team's plan refuses the post; nothing was stored: its monthly submissions are used up (`quota_exceeded`), it has no file uploads (`plan_limit_reached`, answered at the first file part), or the files would pass its storage (`plan_limit_reached`, with `limit`). */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublicPaymentRequiredBody"];
                };
            };
            /** @description The request's `Origin` is not one of the form's `allowed_origins` (a form without any takes every origin). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenOriginBody"];
                };
            };
            /** @description No published form has this id: unknown, a draft (the message says so), unpublished or deleted. A browser navigating (`Accept` preferring `text/html`) gets an HTML page. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublicNotFoundBody"];
                    "text/html": string;
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A limit was crossed (too many fields, values or files, a value, file or body too large); nothing was stored. An upload is answered as soon as it crosses the limit, with `Connection: close`. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeBody"];
                };
            };
            /** @description The body is not `application/x-www-form-urlencoded`, `multipart/form-data` or JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeBody"];
                };
            };
            /** @description The post is well-formed but the form refuses it; nothing was stored. `validation_failed` with `fields` (per posted field, what to fix) when it breaks the field schema; `captcha_failed` when the CAPTCHA token is missing or refused. JSON clients get JSON, everyone else an HTML page listing what to fix. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostRefusedBody"];
                    "text/html": string;
                };
            };
            /** @description Too many posts from this address to this form this minute (the flood limit); nothing was stored. Below it, past the rate limit, posts are stored as spam (`rate_limited`) and answered as usual. */
            429: {
                headers: {
                    /** @description Seconds until the window resets (as `retry_after`). */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description The files could not be stored, or another failure on our side; nothing was kept. The `X-Request-Id` header identifies the request. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    preflightForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The form's id (`frm_…`), the last segment of its `endpoint_url`. Any other value answers 404. */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content; the CORS headers when the origin is allowed. */
            204: {
                headers: {
                    /** @description When the request's `Origin` may post to the form: that origin, or `*` when the form allows any. */
                    "Access-Control-Allow-Origin"?: string;
                    /** @description `POST, OPTIONS`. */
                    "Access-Control-Allow-Methods"?: string;
                    /** @description `Content-Type, Accept, Idempotency-Key, X-Requested-With`. */
                    "Access-Control-Allow-Headers"?: string;
                    /** @description Seconds the browser may keep the answer (600). */
                    "Access-Control-Max-Age"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation_failed`, `details` `in: "path"`: a malformed percent-escape in the path. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description No published form has this id. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublicNotFoundBody"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the calling user, team, role and token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetMeResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — list the tokens minted by the calling user in this team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListTokensResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `tokens:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTokenBody"];
            };
        };
        responses: {
            /** @description Created — mint a token; the plaintext is returned once. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateTokenResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The team's plan does not include this, or one of its limits is reached. */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `tokens:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateToken403Error"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Token id (`tok_…`), not its plaintext. */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — revoke a token of the calling user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OkBody"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `tokens:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getBillingTeam: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the billed team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetBillingTeamResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `billing:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getBillingPlan: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the team's plan, its limits and features. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetBillingPlanResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `billing:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getBillingUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — usage in the current billing period against the plan limits. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetBillingUsageResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `billing:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getBillingSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the team's subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetBillingSubscriptionResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `billing:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listInvoices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the team's invoices, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListInvoicesResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `billing:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listForms: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (at most 1,000,000). */
                page?: number;
                /** @description Items per page, 1 to 100. */
                per_page?: number;
                /** @description Include deleted forms (`with`) or list only them (`only`). */
                trashed?: "with" | "only";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — list the team's forms, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListFormsResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createForm: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateFormBody"];
        responses: {
            /** @description Created — create a form (as a draft). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateFormResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The team's plan does not include this, or one of its limits is reached. */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — show a form (deleted forms too). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetFormResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["UpdateFormBody"];
        responses: {
            /** @description OK — update a form; settings are merged, custom_rules per list. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpdateFormResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The team's plan does not include this, or one of its limits is reached. */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict with the current state of the resource. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — move a form to the trash (restorable). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OkBody"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    publishForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — publish: the public endpoint starts accepting posts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublishFormResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    unpublishForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — unpublish: the public endpoint answers 404. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnpublishFormResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    restoreForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — restore a deleted form. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RestoreFormResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The team's plan does not include this, or one of its limits is reached. */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listFormFields: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — list the field names a form has learned (its export columns). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FormFieldList"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    pruneFormFields: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — forget learned field names no stored submission has (frees room under the limit). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PruneFormFieldsResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    suggestFormSchema: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — propose a field schema from the form's newest inbox submissions, up to 1,000 or 4 MiB of them (types and required-ness seen). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SuggestedSchema"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    forceDeleteForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — erase a form with its submissions, files, webhooks and deliveries (owner/admin). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OkBody"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    streamSubmissions: {
        parameters: {
            query?: {
                /** @description `spam`: also the submissions filed as spam (at the door or by moderation), as `spam` events. Resume a stream with the same value. */
                include?: "spam";
                /** @description Resume after this event id, for clients that cannot send the `Last-Event-ID` header (the header wins when both are sent). Without either: from now on. */
                last_event_id?: string;
            };
            header?: {
                "last-event-id"?: string;
            };
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — stream a form's new submissions as they are processed (server-sent events). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionEventBatch"];
                    "text/event-stream": string;
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listSubmissions: {
        parameters: {
            query?: {
                /** @description `inbox` (not spam), `spam` or `all`. */
                folder?: "inbox" | "spam" | "all";
                per_page?: number;
                /** @description Page number, from 1 (at most 1,000,000; deep pages are faster by `cursor`). */
                page?: number;
                /** @description Only this AI category. */
                category?: string;
                /** @description Only submissions received after this time (ISO 8601). */
                since?: string;
                /** @description Only submissions received before this time (ISO 8601). */
                until?: string;
                /** @description Opaque keyset cursor from `meta.next_cursor`; takes precedence over `page`. */
                cursor?: string;
                /** @description Full-text search: each word must begin a word of the submission's text and number values or the submitter's e-mail (case and accents ignored, no stemming, any language). */
                q?: string;
                /** @description Only submissions with this tag; repeat (`tag=a&tag=b`, at most 10) for all of them. */
                tag?: string | string[];
                /** @description Only submissions in this stage. */
                stage?: string;
                /** @description `me` (the token's user), `none` (unassigned) or a user id (`usr_…`). */
                assignee?: string;
            };
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — list a form's submissions, newest first. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmissionPage"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createSubmission: {
        parameters: {
            query?: never;
            header?: {
                "idempotency-key"?: string;
            };
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        /** @description As JSON; or as multipart/form-data with files: each part a field or a file, and the client as parts `client[ip]`, `client[user_agent]`, `client[referrer]`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSubmissionBody"];
                "multipart/form-data": components["schemas"]["CreateSubmissionMultipartBody"];
            };
        };
        responses: {
            /** @description Created — submit to a form from your own server: the public endpoint's checks, without CORS, honeypot or CAPTCHA. */
            201: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateSubmissionResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description `quota_exceeded`: the team used its plan's submissions for this month. `plan_limit_reached`: files on a plan without uploads, or past the team's file storage. */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublicPaymentRequiredBody"];
                };
            };
            /** @description The token lacks the `submissions:create` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateSubmission403Error"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict with the current state of the resource. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateSubmission409Error"];
                };
            };
            /** @description The request is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is well-formed but cannot be processed. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FieldErrorsBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    bulkSubmissions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkBody"];
            };
        };
        responses: {
            /** @description OK — delete, mark as spam or not spam, tag, untag, move to a stage or assign up to 500 submissions at once. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkResult"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    exportSubmissions: {
        parameters: {
            query?: {
                format?: "csv" | "json";
                /** @description ISO 8601 date or date-time; without a zone it is UTC. */
                since?: string;
                /** @description ISO 8601 date or date-time; without a zone it is UTC. */
                until?: string;
                /** @description Full-text search: each word must begin a word of the submission's text and number values or the submitter's e-mail (case and accents ignored, no stemming, any language). */
                q?: string;
            };
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — stream every submission as CSV or JSON. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "text/csv; charset=utf-8": string;
                    "application/json": components["schemas"]["ExportSubmissionsResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:export` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getSubmission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Submission id (`subm_…`). */
                submission: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — show a submission with typed fields, metadata and signed file URLs. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetSubmissionResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateSubmission: {
        parameters: {
            query?: never;
            header?: {
                "if-match"?: string;
            };
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Submission id (`subm_…`). */
                submission: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateSubmissionBody"];
            };
        };
        responses: {
            /** @description OK — edit the payload (shallow merge), move the submission between states, or triage it: tags, stage, assignee. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpdateSubmissionResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description HTTP 412 — edit the payload (shallow merge), move the submission between states, or triage it: tags, stage, assignee. */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteSubmission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Submission id (`subm_…`). */
                submission: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — delete a submission with its files and audit trail, permanently. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OkBody"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    downloadSubmissionFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Submission id (`subm_…`). */
                submission: string;
                /** @description File id (`file_…`) from the submission. */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Found — redirect (302) to a freshly signed storage URL for the file, valid 60 seconds. */
            302: {
                headers: {
                    /** @description Where the client should go next. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listFormStages: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the form's stages, each with how many inbox submissions are in it. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListFormStagesResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listFormTags: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the tags in use on the form's inbox submissions, each with its count, the most used first (at most 1000). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListFormTagsResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listSubmissionNotes: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (at most 1,000,000). */
                page?: number;
                /** @description Items per page, 1 to 100. */
                per_page?: number;
            };
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Submission id (`subm_…`). */
                submission: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — A submission's notes, oldest first. Notes are the team's: never sent to webhooks, the stream or e-mail. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListSubmissionNotesResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createSubmissionNote: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Submission id (`subm_…`). */
                submission: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateNoteBody"];
            };
        };
        responses: {
            /** @description Created — add a note to a submission (at most 1,000 per submission). */
            201: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateSubmissionNoteResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict with the current state of the resource. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteSubmissionNote: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Submission id (`subm_…`). */
                submission: string;
                /** @description Note id (`note_…`). */
                note: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — delete a note: its author, or an admin or owner of the team. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteSubmissionNoteResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listSubmissionActivity: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (at most 1,000,000). */
                page?: number;
                /** @description Items per page, 1 to 100. */
                per_page?: number;
            };
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Submission id (`subm_…`). */
                submission: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — A submission's changes of stage, tags, assignee, folder and notes, newest first. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListSubmissionActivityResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listRules: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — A form's rules, in the order they run. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListRulesResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateRuleBody"];
        responses: {
            /** @description Created — add a rule (at most 50 per form). */
            201: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateRuleResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    orderRules: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OrderRulesBody"];
            };
        };
        responses: {
            /** @description OK — put the rules in a new order. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderRulesResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    testRules: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["TestRulesBody"];
        responses: {
            /** @description OK — dry run: which rules fire on a submission or a payload, and why (nothing is sent, stored or changed). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestRulesResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Rule id (`rule_…`). */
                rule: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — show a rule. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetRuleResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Rule id (`rule_…`). */
                rule: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["UpdateRuleBody"];
        responses: {
            /** @description OK — change a rule (the fields sent). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpdateRuleResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Rule id (`rule_…`). */
                rule: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — delete a rule (the rules after it move up). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OkBody"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `forms:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — list a form's webhooks. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListWebhooksResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateWebhookBody"];
        responses: {
            /** @description Created — create a webhook; its signing secret is returned this once. */
            201: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateWebhookResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Webhook id (`wh_…`). */
                webhook: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — show a webhook. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetWebhookResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Webhook id (`wh_…`). */
                webhook: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookBody"];
            };
        };
        responses: {
            /** @description OK — change a webhook, reactivate it, or rotate its secret. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpdateWebhookResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Webhook id (`wh_…`). */
                webhook: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — delete a webhook: no new deliveries; retries already scheduled still run. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OkBody"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Webhook id (`wh_…`). */
                webhook: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — send a signed test event now and answer what the receiver said. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestWebhookResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    previewWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Webhook id (`wh_…`). */
                webhook: string;
            };
            cookie?: never;
        };
        /** @description Exactly one of `submission_id` and `payload`; the other fields preview changes not saved yet. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["PreviewWebhookBody"];
            };
        };
        responses: {
            /** @description OK — render the request a submission event would send to a webhook, without sending or storing anything. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookPreview"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listDeliveries: {
        parameters: {
            query?: {
                per_page?: number;
                /** @description `meta.next_cursor` of the previous page. */
                cursor?: string;
                /** @description `pending` before the first answer, `failed` while retrying, then `succeeded` or `dead` (no attempt left). */
                status?: components["schemas"]["DeliveryStatus"];
                submission_id?: string;
            };
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Webhook id (`wh_…`). */
                webhook: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — A webhook's delivery log, newest first. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryPage"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    replayDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Form id (`frm_…`). */
                form: string;
                /** @description Webhook id (`wh_…`). */
                webhook: string;
                /** @description Delivery id (`whd_…`). */
                delivery: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — send a delivery again: a new delivery with the same body, signed now. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReplayDeliveryResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict with the current state of the resource. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    replayDeliveryById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Delivery id (`whd_…`). */
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted — send a delivery again, by its id alone. */
            202: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReplayDeliveryByIdResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict with the current state of the resource. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    replayWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook id (`wh_…`). */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReplayWebhookBody"];
            };
        };
        responses: {
            /** @description Accepted — replay a webhook's deliveries in the background (at most 10,000 per job). */
            202: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReplayWebhookResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `webhooks:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict with the current state of the resource. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getAiInsights: {
        parameters: {
            query?: {
                /** @description A form id (`frm_…`): that form's insights instead of the whole team's. */
                form?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the latest weekly AI insights of the team (or of one form): `data` is null until they are first generated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetAiInsightsResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `insights:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Locked: the team's plan does not include AI features. */
            423: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    regenerateAiInsights: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted — regenerate the team's insights and send the weekly digest, in the background. */
            202: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegenerateAiInsightsResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `insights:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict with the current state of the resource. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlreadyRunningBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Locked: the team's plan does not include AI features. */
            423: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Job id (`job_…`). */
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — progress of a background job (e.g. a bulk webhook replay). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetJobResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createErasure: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ErasureBody"];
        responses: {
            /** @description OK — erase one person's data from every form of the team (owner/admin); a job, or with dry_run an answer at once. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateErasure200Response"];
                };
            };
            /** @description Accepted — erase one person's data from every form of the team (owner/admin); a job, or with dry_run an answer at once. */
            202: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateErasure202Response"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:write` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getErasure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Erasure id (`era_…`). */
                erasure: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK — the receipt of an erasure request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetErasureResponse"];
                };
            };
            /** @description Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorBody"];
                };
            };
            /** @description The bearer token is missing, unknown or revoked (`unauthenticated`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The token lacks the `submissions:read` ability, or the caller may not perform this action. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found. Records of other teams are reported as not found too. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unsupported content type: send `application/json`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description Seconds until the rate limit window resets. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitedBody"];
                };
            };
            /** @description Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    submissionCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery id (`whd_…`), the same on each attempt of a delivery; dedupe on it. */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds when the attempt was signed; refuse ones more than 5 minutes off. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being the base64-decoded part of the secret after `whsec_`. During a secret rotation, one signature per secret, separated by a space. */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed. */
                "X-Service-Timestamp": string;
                /** @description `v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`; during a secret rotation, one per secret, separated by a space. */
                "X-Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubmissionCreatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered (`succeeded`). Anything else, or no answer, is retried on the schedule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery is `dead` at once and the webhook is deactivated. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    submissionSpamWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery id (`whd_…`), the same on each attempt of a delivery; dedupe on it. */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds when the attempt was signed; refuse ones more than 5 minutes off. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being the base64-decoded part of the secret after `whsec_`. During a secret rotation, one signature per secret, separated by a space. */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed. */
                "X-Service-Timestamp": string;
                /** @description `v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`; during a secret rotation, one per secret, separated by a space. */
                "X-Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubmissionSpamEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered (`succeeded`). Anything else, or no answer, is retried on the schedule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery is `dead` at once and the webhook is deactivated. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    submissionUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery id (`whd_…`), the same on each attempt of a delivery; dedupe on it. */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds when the attempt was signed; refuse ones more than 5 minutes off. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being the base64-decoded part of the secret after `whsec_`. During a secret rotation, one signature per secret, separated by a space. */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed. */
                "X-Service-Timestamp": string;
                /** @description `v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`; during a secret rotation, one per secret, separated by a space. */
                "X-Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubmissionUpdatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered (`succeeded`). Anything else, or no answer, is retried on the schedule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery is `dead` at once and the webhook is deactivated. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    aiInsightsRegeneratedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery id (`whd_…`), the same on each attempt of a delivery; dedupe on it. */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds when the attempt was signed; refuse ones more than 5 minutes off. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being the base64-decoded part of the secret after `whsec_`. During a secret rotation, one signature per secret, separated by a space. */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed. */
                "X-Service-Timestamp": string;
                /** @description `v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`; during a secret rotation, one per secret, separated by a space. */
                "X-Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InsightsRegeneratedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered (`succeeded`). Anything else, or no answer, is retried on the schedule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery is `dead` at once and the webhook is deactivated. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    formClosedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery id (`whd_…`), the same on each attempt of a delivery; dedupe on it. */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds when the attempt was signed; refuse ones more than 5 minutes off. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being the base64-decoded part of the secret after `whsec_`. During a secret rotation, one signature per secret, separated by a space. */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed. */
                "X-Service-Timestamp": string;
                /** @description `v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`; during a secret rotation, one per secret, separated by a space. */
                "X-Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FormClosedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered (`succeeded`). Anything else, or no answer, is retried on the schedule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery is `dead` at once and the webhook is deactivated. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookTestWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery id (`whd_…`), the same on each attempt of a delivery; dedupe on it. */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds when the attempt was signed; refuse ones more than 5 minutes off. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being the base64-decoded part of the secret after `whsec_`. During a secret rotation, one signature per secret, separated by a space. */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed. */
                "X-Service-Timestamp": string;
                /** @description `v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`; during a secret rotation, one per secret, separated by a space. */
                "X-Service-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TestSubmissionCreatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx: delivered (`succeeded`). Anything else, or no answer, is retried on the schedule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery is `dead` at once and the webhook is deactivated. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
