# replyflow: the webhook server, workers and sender. Bots are TypeScript files run through tsx
# (a runtime dependency), so the image needs the sources and the production dependencies only.

# 1. Production dependencies, installed from the lockfile.
FROM node:20.20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 2. The runtime image: no npm cache, no dev tools, not root.
FROM node:20.20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY bots ./bots

USER node
EXPOSE 3000
# /readyz: 200 once Redis answers, the bots are loaded and the process is not stopping. A worker
# serves it on REPLYFLOW_HEALTH_PORT, `start` and `web` on PORT.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.REPLYFLOW_HEALTH_PORT || process.env.PORT || 3000) + '/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# SIGTERM (docker stop) drains: the webhook answers 503, work in flight finishes, claims are released.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/replyflow.js"]
CMD ["start"]
