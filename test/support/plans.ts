// The seed of server/infra/db/migrations/0001-accounts.ts, restated so a drift in either is caught.
export const PLANS = {
  free: {
    id: 'free',
    name: 'Free',
    price_cents: 0,
    currency: 'usd',
    interval: 'month',
    limits: { monthly_submissions: 50, forms: 3, storage_bytes: 0, file_bytes: 0 },
    features: { ai: false, api_tokens: false, file_uploads: false, autoresponder: false },
  },
  pro: {
    id: 'pro',
    name: 'Pro',
    price_cents: 1900,
    currency: 'usd',
    interval: 'month',
    limits: { monthly_submissions: 5000, forms: 25, storage_bytes: 10737418240, file_bytes: 10485760 },
    features: { ai: true, api_tokens: true, file_uploads: true, autoresponder: true },
  },
  team: {
    id: 'team',
    name: 'Team',
    price_cents: 4900,
    currency: 'usd',
    interval: 'month',
    limits: { monthly_submissions: 25000, forms: 100, storage_bytes: 53687091200, file_bytes: 10485760 },
    features: { ai: true, api_tokens: true, file_uploads: true, autoresponder: true },
  },
  scale: {
    id: 'scale',
    name: 'Scale',
    price_cents: 19900,
    currency: 'usd',
    interval: 'month',
    limits: { monthly_submissions: null, forms: null, storage_bytes: null, file_bytes: 10485760 },
    features: { ai: true, api_tokens: true, file_uploads: true, autoresponder: true },
  },
} as const;
