import { initServer } from '@ts-rest/express';
import { formsContract } from '../../../contract/forms.ts';
import type { AppContext } from '../../context.ts';
import * as forms from '../../domain/forms.ts';
import { callerOf } from '../request-context.ts';

export function formsRouter(ctx: AppContext) {
  return initServer().router(formsContract, {
    listForms: async ({ res, query }) => ({ status: 200, body: await forms.listForms(ctx, callerOf(res), query) }),
    createForm: async ({ res, body }) => ({ status: 201, body: { data: await forms.createForm(ctx, callerOf(res), body) } }),
    getForm: async ({ res, params }) => ({ status: 200, body: { data: await forms.getForm(ctx, callerOf(res), params.form) } }),
    updateForm: async ({ res, params, body }) => ({
      status: 200,
      body: { data: await forms.updateForm(ctx, callerOf(res), params.form, body) },
    }),
    deleteForm: async ({ res, params }) => {
      await forms.deleteForm(ctx, callerOf(res), params.form);
      return { status: 200, body: { ok: true } };
    },
    publishForm: async ({ res, params }) => ({ status: 200, body: { data: await forms.publishForm(ctx, callerOf(res), params.form) } }),
    unpublishForm: async ({ res, params }) => ({ status: 200, body: { data: await forms.unpublishForm(ctx, callerOf(res), params.form) } }),
    restoreForm: async ({ res, params }) => ({ status: 200, body: { data: await forms.restoreForm(ctx, callerOf(res), params.form) } }),
    listFormFields: async ({ res, params }) => ({ status: 200, body: await forms.listFormFields(ctx, callerOf(res), params.form) }),
    pruneFormFields: async ({ res, params }) => ({ status: 200, body: await forms.pruneFormFields(ctx, callerOf(res), params.form) }),
    suggestFormSchema: async ({ res, params }) => ({ status: 200, body: await forms.suggestFormSchema(ctx, callerOf(res), params.form) }),
    forceDeleteForm: async ({ res, params }) => {
      await forms.forceDeleteForm(ctx, callerOf(res), params.form);
      return { status: 200, body: { ok: true } };
    },
  });
}
