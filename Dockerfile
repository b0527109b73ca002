# syntax=docker/dockerfile:1
# One image for every codesift process; the command picks which one:
#   codesift-worker <stage>          scanner | chunker | contextualizer | embedder | writer | symbols
#   codesift-query                   gRPC query service (port 50051; configured from the environment)
#   codesift mcp --http --host 0.0.0.0 …   MCP over streamable HTTP (port 7400)
# docker-compose.yml and deploy/ (Kubernetes) run it that way.

# --- build: install the workspace and compile every package -----------------
FROM node:22-bookworm-slim AS build
# Compilers only for native modules (better-sqlite3, tree-sitter, usearch)
# whose prebuilt binary is not available for this platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# onnxruntime-node's install script downloads GPU libraries; its CPU binary
# ships inside the package. npm 11 skips that script (package.json
# allowScripts); the image's npm 10 predates allowScripts and reads this.
ENV ONNXRUNTIME_NODE_INSTALL=skip
# The whole context (see .dockerignore): `npm ci` runs the root `prepare`
# script, which already builds every workspace package.
COPY . .
RUN npm ci
RUN npm run build
# Only production dependencies go into the runtime image; the workspace
# packages stay linked under node_modules/@codesift, their bins under
# node_modules/.bin (codesift, codesift-worker, codesift-query).
RUN npm prune --omit=dev

# --- runtime ------------------------------------------------------------------
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PATH=/app/node_modules/.bin:$PATH
WORKDIR /app
COPY --from=build /app /app
# /data holds a SQLite index when CODESIFT_STORE=sqlite (CODESIFT_INDEX=
# /data/index.db; compose and deploy/ use Elasticsearch + Qdrant instead),
# /symbols the symbol service's store; a named volume mounted there starts
# with this owner. /checkouts is where the scanner finds the trees it indexes
# (CODESIFT_SCAN_ROOT), mounted read-only.
RUN mkdir -p /data /symbols /checkouts && chown node:node /data /symbols
USER node
# 50051: codesift-query (gRPC); 7400: codesift mcp --http.
EXPOSE 50051 7400
CMD ["codesift", "--help"]
