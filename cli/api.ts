import { isAppRoute, type AppRoute } from '@ts-rest/core';
import type { Command } from 'commander';
import { contract } from '../contract/index.ts';
import { createClient } from '../sdk/index.ts';
import { fail } from './exit-status.ts';
import { print, spinning } from './output.ts';
import { connection, withConnectionOptions } from './profiles.ts';
import { addFieldOptions, addPathParams, pathParamNames, requestParts, scopeParams } from './route-options.ts';
import { saveStream } from './save-stream.ts';
import { humanBody, registerTriage } from './triage.ts';

/**
 * The API commands (`intake forms list`, `intake submissions export --form …`), one per contract route, through
 * the SDK. Options come from cli/route-options.ts. Output is a table, or with `--json` exactly the API's `data`.
 * Docs: docs/cli.md (generated from this command tree: npm run cli-docs).
 */

/** Route key → [resource, verb]. Every contract route has one (a test checks); DESIGN.md: route key = CLI verb. */
export const COMMANDS: Record<string, [string, string]> = {
  getMe: ['me', ''],
  listForms: ['forms', 'list'],
  getForm: ['forms', 'get'],
  createForm: ['forms', 'create'],
  updateForm: ['forms', 'update'],
  deleteForm: ['forms', 'delete'],
  publishForm: ['forms', 'publish'],
  unpublishForm: ['forms', 'unpublish'],
  restoreForm: ['forms', 'restore'],
  forceDeleteForm: ['forms', 'erase'],
  listFormFields: ['forms', 'fields'],
  listFormStages: ['forms', 'stages'],
  listFormTags: ['forms', 'tags'],
  suggestFormSchema: ['forms', 'suggest-schema'],
  createErasure: ['erasure', 'create'],
  getErasure: ['erasure', 'show'],
  pruneFormFields: ['forms', 'prune-fields'],
  createSubmission: ['submissions', 'create'],
  listSubmissions: ['submissions', 'list'],
  getSubmission: ['submissions', 'get'],
  updateSubmission: ['submissions', 'update'],
  deleteSubmission: ['submissions', 'delete'],
  bulkSubmissions: ['submissions', 'bulk'],
  exportSubmissions: ['submissions', 'export'],
  streamSubmissions: ['listen', ''], // its own command: cli/listen.ts
  downloadSubmissionFile: ['submissions', 'download'],
  listSubmissionNotes: ['submissions', 'notes'],
  createSubmissionNote: ['submissions', 'note'],
  deleteSubmissionNote: ['submissions', 'delete-note'],
  listSubmissionActivity: ['submissions', 'activity'],
  listRules: ['rules', 'list'],
  getRule: ['rules', 'get'],
  createRule: ['rules', 'create'],
  updateRule: ['rules', 'update'],
  deleteRule: ['rules', 'delete'],
  orderRules: ['rules', 'order'],
  testRules: ['rules', 'test'],
  listWebhooks: ['webhooks', 'list'],
  getWebhook: ['webhooks', 'get'],
  createWebhook: ['webhooks', 'create'],
  updateWebhook: ['webhooks', 'update'],
  deleteWebhook: ['webhooks', 'delete'],
  replayWebhook: ['webhooks', 'replay'],
  testWebhook: ['webhooks', 'test'],
  previewWebhook: ['webhooks', 'preview'],
  listDeliveries: ['deliveries', 'list'],
  replayDeliveryById: ['deliveries', 'replay'],
  replayDelivery: ['deliveries', 'resend'],
  getAiInsights: ['insights', 'get'],
  regenerateAiInsights: ['insights', 'regenerate'],
  getBillingTeam: ['billing', 'team'],
  getBillingPlan: ['billing', 'plan'],
  getBillingUsage: ['billing', 'usage'],
  getBillingSubscription: ['billing', 'subscription'],
  listInvoices: ['billing', 'invoices'],
  listTokens: ['tokens', 'list'],
  createToken: ['tokens', 'create'],
  revokeToken: ['tokens', 'revoke'],
  getJob: ['jobs', 'get'],
};

/** Each resource's description and examples (shown by `intake <resource> --help` and in docs/cli.md). */
export const RESOURCES: Record<string, [string, string[]]> = {
  forms: [
    'Forms: create, publish, list, trash and restore',
    [
      'intake forms create --name "Contact us"',
      'intake forms publish frm_…',
      'intake forms list --per-page 50 --json',
      'intake forms stages frm_…',
    ],
  ],
  submissions: [
    'Submissions of a form: submit from a server, list, read, change, triage (tags, stage, assignee, notes), bulk actions, export, files',
    [
      `intake submissions create --form frm_… --fields '{"email":"ada@example.com"}'`,
      'intake submissions list --form frm_… --folder spam',
      'intake submissions list --form frm_… --tag urgent --stage new --assignee none',
      'intake submissions get subm_… --form frm_…',
      'intake submissions tag subm_… --form frm_… --add urgent,vip --remove old',
      'intake submissions stage subm_… --form frm_… in_progress',
      'intake submissions assign subm_… --form frm_… me',
      'intake submissions note subm_… --form frm_… --body "Called back, sending a quote"',
      'intake submissions activity subm_… --form frm_…',
      'intake submissions bulk --form frm_… --ids subm_a,subm_b --action mark_not_spam',
      'intake submissions export --form frm_… --format csv -o all.csv',
    ],
  ],
  rules: [
    "A form's rules: what it does with each submission, chosen by its answers (docs/rules.md)",
    [
      `intake rules create --form frm_… --name "Sales to sales@" --when '{"all":[{"field":"department","op":"equals","value":"sales"}]}' --actions '[{"type":"notify","to":["sales@example.com"]}]'`,
      'intake rules list --form frm_…',
      `intake rules test --form frm_… --payload '{"department":"Sales"}'`,
      'intake rules order --form frm_… --ids rule_b,rule_a',
      'intake rules update rule_… --form frm_… --enabled false',
    ],
  ],
  webhooks: [
    "A form's webhooks, and bulk replay of their deliveries",
    [
      'intake webhooks create --form frm_… --label CRM --url https://crm.example.com/hook',
      'intake webhooks rotate-secret wh_… --form frm_…',
      `intake webhooks preview wh_… --form frm_… --payload '{"email":"ada@example.com"}' --body-template '{"to":"{{ email }}"}'`,
      'intake webhooks replay wh_… --status dead --wait',
    ],
  ],
  deliveries: [
    "A webhook's delivery log, and replay of one delivery",
    ['intake deliveries list --form frm_… --webhook wh_… --status failed', 'intake deliveries replay whd_…'],
  ],
  insights: [
    'Weekly AI insights of the team (or one form)',
    ['intake insights get --form frm_…', 'intake insights regenerate --wait'],
  ],
  billing: [
    'Plan, usage, subscription and invoices of the team',
    ['intake billing usage', 'intake billing invoices --json'],
  ],
  tokens: [
    "API tokens of the caller's family",
    ['intake tokens create --name ci --abilities forms:read,submissions:read', 'intake tokens revoke tok_…'],
  ],
  jobs: ['Background jobs (bulk replay)', ['intake jobs get job_…']],
  erasure: [
    "Erase one person's data from every form of the team (GDPR/CCPA requests), and read an erasure's receipt",
    ['intake erasure create --email ada@example.com', 'intake erasure show era_…'],
  ],
};

type Global = { json?: boolean; profile?: string };

async function run(
  routeKey: string,
  route: AppRoute,
  scoped: string[],
  positional: string[],
  opts: Record<string, unknown>,
  global: Global,
): Promise<void> {
  const parts = requestParts(route, scoped, positional, opts);
  const { url, token } = connection(global.profile);
  const client = createClient({ baseUrl: url, token });
  const ok = client.ok as unknown as Record<string, (args: unknown) => Promise<unknown>>;

  if (routeKey === 'exportSubmissions') {
    const stream = await client.exportSubmissions({
      params: { form: parts.params.form! },
      query: parts.query as never,
    });
    return saveStream(stream, opts.output as string | undefined);
  }
  if (routeKey === 'downloadSubmissionFile') {
    const stream = await client.downloadFile({
      params: parts.params as { form: string; submission: string; file: string },
    });
    return saveStream(stream, opts.output as string | undefined);
  }
  const body = await ok[routeKey]!({
    params: parts.params,
    query: parts.query,
    headers: parts.headers,
    ...(parts.body !== undefined ? { body: parts.body } : {}),
  });
  if (opts.wait && routeKey === 'replayWebhook') {
    const { job_id } = body as { job_id: string };
    const job = await spinning(`replaying (job ${job_id})`, client.waitForJob(job_id, { intervalMs: 500 }));
    return print({ data: job }, Boolean(global.json));
  }
  if (opts.wait && routeKey === 'regenerateAiInsights') {
    const queuedAt = Date.parse((body as { queued_at: string }).queued_at);
    const done = (async () => {
      for (;;) {
        const { data } = await (client.ok.getAiInsights({ query: {} }) as Promise<{
          data: { generated_at: string } | null;
        }>);
        if (data && Date.parse(data.generated_at) >= queuedAt) return { data };
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    return print(await spinning('generating insights', done), Boolean(global.json));
  }
  if (routeKey === 'previewWebhook' && !global.json) return printRequest(body as Preview);
  print(global.json ? body : humanBody(routeKey, body), Boolean(global.json));
}

type Preview = { headers: Record<string, string>; body: string };

/** A previewed request as it would go out: its headers, a blank line, the body. */
function printRequest(preview: Preview): void {
  const headers = Object.entries(preview.headers).map(([name, value]) => `${name}: ${value}\n`);
  process.stdout.write(`${headers.join('')}\n${preview.body}\n`);
}

/** The path parameter a group's commands act on, given positionally: `intake forms publish frm_…`. */
const RECORDS: Record<string, string> = { forms: 'form', webhooks: 'webhook' };

function addRoute(parent: Command, routeKey: string, route: AppRoute, verb: string): void {
  const cmd = verb ? parent.command(verb) : parent;
  cmd.description(`${route.summary ?? routeKey}  [${route.method} ${route.path}]`);
  const names = pathParamNames(route.path);
  const scoped = scopeParams(names, RECORDS[parent.name()]);
  addPathParams(cmd, names, scoped);
  addFieldOptions(cmd, route, scoped);
  if (routeKey === 'exportSubmissions' || routeKey === 'downloadSubmissionFile')
    cmd.option('-o, --output <file>', 'write to this file (default: standard output)');
  if (routeKey === 'replayWebhook' || routeKey === 'regenerateAiInsights')
    cmd.option('--wait', 'wait until it has finished (a spinner on a terminal)');
  withConnectionOptions(cmd).option('--json', 'print exactly the API data as JSON');
  cmd.action(async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    try {
      await run(routeKey, route, scoped, command.args, command.opts(), command.opts());
    } catch (err) {
      fail(err);
    }
  });
}

export function registerApi(program: Command): void {
  const groups = new Map<string, Command>();
  for (const [routeKey, route] of Object.entries(contract as Record<string, unknown>)) {
    if (!isAppRoute(route as AppRoute)) continue;
    // A route not named in COMMANDS yet still gets a command (its first path segment, its route key in
    // kebab-case) rather than breaking the CLI; test/cli/api.test.ts asks for a proper name.
    const [resource, verb] = COMMANDS[routeKey] ?? [
      (route as AppRoute).path.split('/')[2]!,
      routeKey.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
    ];
    if (routeKey === 'streamSubmissions') continue; // an open stream, not one answer: `intake listen` (cli/listen.ts)
    let group = groups.get(resource);
    if (!group) {
      const [description, examples] = RESOURCES[resource] ?? [];
      if (verb && !description)
        throw new Error(`no description for the command group ${resource}: add it to cli/api.ts RESOURCES`);
      group = verb ? program.command(resource).description(description!) : program.command(resource);
      if (examples?.length) group.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}\n`);
      groups.set(resource, group);
    }
    addRoute(group, routeKey, route as AppRoute, verb);
  }
  // A convenience verb: a new secret for a webhook (updateWebhook with rotate_secret).
  const rotate = groups
    .get('webhooks')!
    .command('rotate-secret')
    .description('Give a webhook a new signing secret (the old one keeps signing for 24 hours)');
  addPathParams(rotate, ['form', 'webhook'], ['form']);
  withConnectionOptions(rotate).option('--json', 'print exactly the API data as JSON');
  rotate.action(async (_webhook: string, o: Global & Record<string, unknown>, command: Command) => {
    try {
      await run(
        'updateWebhook',
        contract.updateWebhook,
        ['form'],
        command.args,
        { form: o.form, rotateSecret: true },
        o,
      );
    } catch (err) {
      fail(err);
    }
  });
  // Triage verbs on top of updateSubmission: tag, stage, assign (cli/triage.ts).
  registerTriage(groups.get('submissions')!);
}
