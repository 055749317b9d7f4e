# loadtest on a runtime's official image, for --on swarm --image NAME and --on kubernetes --image
# NAME (doc/distributed.md); the entrypoint is loadtest itself. Pick the runtime with --target:
#   docker build --target node -t REGISTRY/loadtest:node .     (or --target bun, --target deno)
#   docker push REGISTRY/loadtest:node
# Not needed on one machine: --on swarm without --image makes an image of this installation.

FROM node:22-slim AS files
WORKDIR /loadtest
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY src src
COPY runtimes runtimes

FROM node:22-slim AS node
COPY --from=files /loadtest /loadtest
ENTRYPOINT ["node", "/loadtest/src/cli.js"]

FROM oven/bun:1-slim AS bun
COPY --from=files /loadtest /loadtest
ENTRYPOINT ["bun", "/loadtest/src/cli.js"]

# Pin a version for repeatable builds (denoland/deno:X.Y.Z).
FROM denoland/deno:latest AS deno
COPY --from=files /loadtest /loadtest
ENV DENO_DIR=/tmp/deno-dir
ENTRYPOINT ["deno", "run", "-A", "/loadtest/src/cli.js"]
