import { afterAll } from 'vitest';
import { makePublishedForm } from './forms.ts';
import { bearer, makeTeam, type TestApp, type TestMember } from './harness.ts';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type Reply } from './https-receiver.ts';

export type HookedForm = {
  owner: TestMember;
  formId: string;
  endpoint: string;
  webhookId: string;
  secret: string;
  receiver: HttpsReceiver;
};

/**
 * Makes, per call, a team of its own with a published form and a webhook to a real HTTPS receiver of its
 * own (answering with `reply`); the receivers close after the file's tests.
 */
export function hookedForms(
  t: TestApp,
): (reply?: (req: ReceivedRequest) => Reply, webhook?: Record<string, unknown>) => Promise<HookedForm> {
  const receivers: HttpsReceiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });
  return async (reply, webhook = {}) => {
    const receiver = await startHttpsReceiver(reply ? { reply } : {});
    receivers.push(receiver);
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    const res = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'Receiver', url: `${receiver.localhostUrl}/hooks/intake`, ...webhook });
    if (res.status !== 201) throw new Error(`webhook create failed: ${res.status} ${res.text}`);
    return {
      owner,
      formId: form.id,
      endpoint: form.endpoint,
      webhookId: res.body.data.id,
      secret: res.body.secret,
      receiver,
    };
  };
}
