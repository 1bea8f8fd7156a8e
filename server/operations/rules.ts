import type { rulesContract } from '../../contract/rules.ts';
import * as rules from '../domain/rules/rules.ts';
import { testRules } from '../domain/rules/dry-run.ts';
import type { OperationsOf } from './types.ts';

export const rulesOperations = {
  listRules: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await rules.listRules(ctx, caller, params.form) },
  }),
  createRule: async (ctx, caller, { params, body }) => ({
    status: 201,
    body: { data: await rules.createRule(ctx, caller, params.form, body) },
  }),
  orderRules: async (ctx, caller, { params, body }) => ({
    status: 200,
    body: { data: await rules.orderRules(ctx, caller, params.form, body.ids) },
  }),
  testRules: async (ctx, caller, { params, body }) => ({
    status: 200,
    body: { data: await testRules(ctx, caller, params.form, body) },
  }),
  getRule: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await rules.getRule(ctx, caller, params.form, params.rule) },
  }),
  updateRule: async (ctx, caller, { params, body }) => ({
    status: 200,
    body: { data: await rules.updateRule(ctx, caller, params.form, params.rule, body) },
  }),
  deleteRule: async (ctx, caller, { params }) => {
    await rules.deleteRule(ctx, caller, params.form, params.rule);
    return { status: 200, body: { ok: true as const } };
  },
} satisfies OperationsOf<typeof rulesContract>;
