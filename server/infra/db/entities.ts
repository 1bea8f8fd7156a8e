import { defineEntity, p } from '@mikro-orm/core';

/**
 * MikroORM entities for the tables some query modules use through the EntityManager. Foreign keys are plain
 * columns: every query is scoped by `teamId` explicitly, never by lazy loading. The schema is the migrations'.
 */

export const Plan = defineEntity({
  name: 'Plan',
  tableName: 'plans',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    priceCents: p.integer(),
    monthlySubmissions: p.integer().nullable(),
    maxForms: p.integer().nullable(),
    ai: p.boolean(),
    apiTokens: p.boolean(),
    fileUploads: p.boolean(),
    maxFileBytes: p.bigint('number'),
    storageBytes: p.bigint('number').nullable(),
    autoresponder: p.boolean(),
  },
});

export const Team = defineEntity({
  name: 'Team',
  tableName: 'teams',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    planId: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().primary(),
    email: p.string(),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    teamId: p.string().primary(),
    userId: p.string().primary(),
    role: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  primaryKeys: ['teamId', 'userId'],
});

export const ApiToken = defineEntity({
  name: 'ApiToken',
  tableName: 'api_tokens',
  properties: {
    id: p.string().primary(),
    teamId: p.string(),
    userId: p.string(),
    name: p.string(),
    abilities: p.array(),
    tokenHash: p.string(),
    last4: p.string(),
    lastUsedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});

export const Subscription = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  properties: {
    id: p.string().primary(),
    teamId: p.string().primary(),
    planId: p.string(),
    status: p.string(),
    currentPeriodStart: p.datetime(),
    currentPeriodEnd: p.datetime(),
    cancelAtPeriodEnd: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  primaryKeys: ['id', 'teamId'],
});

export const Invoice = defineEntity({
  name: 'Invoice',
  tableName: 'invoices',
  properties: {
    id: p.string().primary(),
    teamId: p.string().primary(),
    number: p.string(),
    status: p.string(),
    currency: p.string(),
    amountCents: p.integer(),
    periodStart: p.datetime(),
    periodEnd: p.datetime(),
    issuedAt: p.datetime(),
    paidAt: p.datetime().nullable(),
  },
  primaryKeys: ['id', 'teamId'],
});

export const Form = defineEntity({
  name: 'Form',
  tableName: 'forms',
  properties: {
    id: p.string().primary(),
    teamId: p.string().primary(),
    name: p.string(),
    status: p.string(),
    notificationEmails: p.array(),
    settings: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  },
  primaryKeys: ['id', 'teamId'],
});
export const entities = [Plan, Team, User, Membership, ApiToken, Subscription, Invoice, Form];
