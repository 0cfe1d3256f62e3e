# Production image of the platform API: one image, two roles (API and worker),
# chosen by the command. Build: docker build -t platform-api .
# BASE: the image both stages start from. The default is Node 24 LTS, the minor scripts/install-node
# pins for CI's test run (keep the two in step); scripts/containers/build-images passes a local
# one built from Debian's packages on machines that reach no image registry.
ARG BASE=node:24.21-bookworm-slim

FROM ${BASE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The npm cache outlives the layer, so a changed lock file downloads only what changed. A build that
# reaches the registry through a TLS-inspecting proxy passes its CA bundle as the secret npm_ca
# (`--secret id=npm_ca,src=FILE`): it is read for this step only and never stored in a layer.
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${BASE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# docs/errors.md: the pages problem+json `type` URIs name (GET /errors/{type}); no other doc is read.
COPY --from=build /app/docs/errors.md ./docs/errors.md
# The `node` user (uid 1000) of the node images; root owns the files, so the service cannot change them.
USER node
EXPOSE 8080
# API by default; the worker service overrides the command with dist/bin/start-worker.js.
CMD ["node", "dist/bin/start-api.js"]
