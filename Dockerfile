# Sitebase server image (docs/deployment.md).
#   docker build -t sitebase .
#   docker run --rm -p 3000:3000 -e DATABASE_URL=postgres://user:pass@db:5432/sitebase sitebase
# The server applies pending migrations at start, under an advisory lock (MIGRATIONS_RUN=true),
# then listens. To migrate as a separate step instead, run the image once with
# `node dist/src/database/migrate.js` and start the servers with MIGRATIONS_RUN=false.

# --- build: every dependency, compile, then drop the dev dependencies -------------------------
FROM node:22-bookworm-slim AS build
# swagger-ui-dist's @scarf/scarf reports installs from a postinstall script: not from our builds.
ENV SCARF_ANALYTICS=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY scripts/build.js ./scripts/build.js
COPY src ./src
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && npm cache clean --force

# --- runtime: the compiled server and production dependencies, as a non-root user -------------
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Local media and upload spooling (MEDIA_LOCAL_DIR, MEDIA_TMP_DIR) and an embedded database
# (when DATABASE_URL is unset) live under .data: the only folder the server writes.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
# Ready means the database answers (GET /health/ready); node has fetch, the slim image no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node handles SIGTERM itself (graceful drain, docs/foundation.md), also as PID 1.
CMD ["node", "--max-semi-space-size=32", "dist/src/main.js"]
