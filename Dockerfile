# syntax=docker/dockerfile:1
# One image for every Intake process: `serve --no-worker`, `worker` and `migrate` are its commands (see
# compose.yaml). test/production-install.test.ts runs this file's install command and entrypoint on a fresh
# copy of what it copies, and scripts/check-deploy.ts keeps the two in step.

# Pinned by version: the Node the Makefile pins for development and CI (NODE_VERSION).
FROM node:22.23.3-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:22.23.3-bookworm-slim
# The data directory only holds development fallbacks (a generated secret, mail written to files); production
# sets DATABASE_URL, STORAGE_URL, INTAKE_SECRET_KEY and SMTP_URL, so a scratch place the user can write is enough.
ENV NODE_ENV=production INTAKE_DATA_DIR=/tmp/intake PORT=3000
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json openapi.json ./
COPY cli ./cli
COPY contract ./contract
COPY sdk ./sdk
COPY server ./server
# The image's `node` user (uid 1000): nothing the process runs as can write its own code.
USER node
EXPOSE 3000
# What orchestrators send; Intake drains on it (INTAKE_SHUTDOWN_DRAIN_MS) and exits 0 within INTAKE_SHUTDOWN_TIMEOUT_MS.
STOPSIGNAL SIGTERM
# The slim image has no curl: Node asks. /readyz answers 503 from the moment a SIGTERM arrives. Processes
# without HTTP (worker, migrate) turn it off in compose.yaml.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--no-warnings=ExperimentalWarning", "--max-semi-space-size=32", "cli/main.ts"]
CMD ["serve", "--no-worker"]
