import type { formsContract } from '../../contract/forms.ts';
import * as forms from '../domain/forms/forms.ts';
import type { OperationsOf } from './types.ts';

export const formsOperations = {
  listForms: async (ctx, caller, { query }) => ({ status: 200, body: await forms.listForms(ctx, caller, query) }),
  createForm: async (ctx, caller, { body }) => ({
    status: 201,
    body: { data: await forms.createForm(ctx, caller, body) },
  }),
  getForm: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await forms.getForm(ctx, caller, params.form) },
  }),
  updateForm: async (ctx, caller, { params, body }) => ({
    status: 200,
    body: { data: await forms.updateForm(ctx, caller, params.form, body) },
  }),
  deleteForm: async (ctx, caller, { params }) => {
    await forms.deleteForm(ctx, caller, params.form);
    return { status: 200, body: { ok: true } };
  },
  publishForm: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await forms.publishForm(ctx, caller, params.form) },
  }),
  unpublishForm: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await forms.unpublishForm(ctx, caller, params.form) },
  }),
  restoreForm: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await forms.restoreForm(ctx, caller, params.form) },
  }),
  listFormFields: async (ctx, caller, { params }) => ({
    status: 200,
    body: await forms.listFormFields(ctx, caller, params.form),
  }),
  pruneFormFields: async (ctx, caller, { params }) => ({
    status: 200,
    body: await forms.pruneFormFields(ctx, caller, params.form),
  }),
  suggestFormSchema: async (ctx, caller, { params }) => ({
    status: 200,
    body: await forms.suggestFormSchema(ctx, caller, params.form),
  }),
  forceDeleteForm: async (ctx, caller, { params }) => {
    await forms.forceDeleteForm(ctx, caller, params.form);
    return { status: 200, body: { ok: true } };
  },
} satisfies OperationsOf<typeof formsContract>;
