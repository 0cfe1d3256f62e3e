# Production image of the platform API: one image, two roles (API and worker),
# chosen by the command. Build: docker build -t platform-api .
# Node 24 LTS, the minor scripts/install-node pins for CI's test run (keep the two in step).
FROM node:24.21-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24.21-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# docs/errors.md: the pages problem+json `type` URIs name (GET /errors/{type}).
COPY --from=build /app/docs ./docs
USER node
EXPOSE 8080
# API by default; the worker service overrides the command with dist/bin/start-worker.js.
CMD ["node", "dist/bin/start-api.js"]
