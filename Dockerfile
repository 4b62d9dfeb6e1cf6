# syntax=docker/dockerfile:1
#
# Production image for the API server and its admin CLI.
#   docker build -t pwpush-api .
#   docker run --rm -p 5100:5100 --read-only --tmpfs /tmp \
#     -e DATABASE_URL=mysql://user:pass@db:3306/pwpush -e PWPUSH_MASTER_KEY=$(openssl rand -hex 32) pwpush-api
#
# Stages: `deps` has the toolchain for the native modules (better-sqlite3,
# argon2); `build` compiles TypeScript with the dev dependencies; `prod-deps`
# installs production dependencies only; `runtime` gets node_modules + dist and
# nothing else (no compilers, no npm), runs as uid 10001 and writes only to /tmp.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ make python3 \
 && rm -rf /var/lib/apt/lists/*
# node-gyp compiles against the headers that ship in the image instead of
# downloading them when a native module has no prebuilt binary.
ENV npm_config_nodedir=/usr/local
WORKDIR /app
# Only the manifests, so the dependency layers are cached until they change
# (the glob copies .npmrc when the repository has one).
COPY package.json package-lock.json .npmrc* ./

# ---------------------------------------------------------------------------
FROM deps AS build
RUN npm ci --no-audit --no-fund
COPY . .
# The server (CMD below) and the CLI (the Helm chart's migration Job runs
# `node dist/apps/cli/src/main.js migrations:run`) must both be in the image,
# and the language catalogues the server reads at start.
RUN npm run build \
 && test -f dist/apps/api/src/main.js \
 && test -f dist/apps/cli/src/main.js \
 && test -f dist/libs/i18n/catalogues/en.json

# ---------------------------------------------------------------------------
FROM deps AS prod-deps
# The require() fails the build here, not at run time, if a native module did not build.
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && node -e "require('better-sqlite3'); require('argon2')"

# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=5100
# The package managers are not needed to run the app; removing them shrinks
# the attack surface (and the vulnerability-scanner noise from their deps).
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /opt/yarn-* /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && groupadd --system --gid 10001 pwpush \
 && useradd --system --uid 10001 --gid pwpush --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin pwpush
WORKDIR /app
# Owned by root and not writable by the app user: the code cannot be modified at
# run time. package.json is read for the version the API reports.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER 10001:10001
EXPOSE 5100
# No curl in the slim image: node's built-in fetch checks liveness (no database).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 5100) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/apps/api/src/main.js"]
