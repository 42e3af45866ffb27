# syntax=docker/dockerfile:1
# tradebot image: build with `docker build -t tradebot .`; run with secrets as files (never as -e VALUE:
# `docker inspect` shows a container's environment to anyone who can talk to the Docker daemon):
#   docker run --rm --stop-timeout 20 \
#     -e TRADEBOT_API_KEY_FILE=/run/secrets/api-key -e TRADEBOT_API_SECRET_FILE=/run/secrets/api-secret \
#     -e TRADEBOT_REDIS_URL_FILE=/run/secrets/redis-url -v "$PWD/secrets:/run/secrets:ro" \
#     -v "$PWD/config/live.yaml:/app/config/live.yaml:ro" tradebot
# Metrics, /healthz and /readyz listen on the container's loopback only: /metrics shows balances,
# exposure, PnL, open orders and strategy names. To let Prometheus scrape, opt in and publish on an
# address only it reaches (docs/operations.md "Docker"):
#     -e TRADEBOT_CONFIG__METRICS__HOST=0.0.0.0 -p 127.0.0.1:9464:9464
# --stop-timeout: Docker's default (10 s) equals the daemon's shutdown delay; give it more.

# Node.js 26, the Active LTS line (LTS since 2026-10-28; Node 20 is end of life since 2026-04-30),
# pinned to one release so a rebuild gets the same runtime. Debian 13 (trixie) is the default base of
# the Node 26 images. Pin the digest as well where you build (it is not reachable from here):
#   docker buildx imagetools inspect node:26.10.0-trixie-slim   -> ARG NODE_IMAGE=node:26.10.0-trixie-slim@sha256:...
# The daemon runs on Node >= 20.19 (package.json engines); 26.10.0 is what the image is tested with.
ARG NODE_IMAGE=node:26.10.0-trixie-slim

# ---- build: compile TypeScript to dist/ ------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` runs the build, and the sources are not copied yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.sdk.json ./
COPY src ./src
COPY strategies ./strategies
COPY bench ./bench
# Benchmarks are part of the build (tsconfig.build.json) and may import test helpers.
COPY test/helpers ./test/helpers
RUN npm run build

# ---- runtime: production dependencies and the compiled code only -----------------------------
# Strategy guests start under util-linux's setpriv (--pdeathsig KILL --no-new-privs) and, at the
# namespaces level, unshare (src/strategy/guest/sandbox.ts). No install step: util-linux is
# Essential in Debian, so every Debian image has it, slim ones included (trixie's util-linux ships
# /usr/bin/setpriv and /usr/bin/unshare). Under Docker's default seccomp profile unshare is refused
# and guests run at permission-net (Node 26's permission model, no sockets); see
# docs/operations.md "Strategy guest isolation" for what gives them namespaces.
FROM ${NODE_IMAGE} AS runtime
# No TRADEBOT_CONFIG__METRICS__HOST here: metrics stay on 127.0.0.1 (the config default) unless the
# operator opts in at run time (the Kubernetes Deployment does, behind its NetworkPolicy).
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist ./dist
# Lua scripts are read at run time from src/store/scripts (tsc does not copy them to dist/).
COPY src/store/scripts/ ./src/store/scripts/
# The console's page (HTML, JS, CSS) is served from src/console/page for the same reason.
COPY src/console/page/ ./src/console/page/
COPY config ./config
COPY strategies ./strategies

# The base image's `node` user (uid 1000), given numerically so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
# No EXPOSE: `docker run -P` would publish the metrics port on every host address.

# Liveness over the metrics port, on loopback (where it listens by default; 0.0.0.0 includes it).
# node, not curl: the slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const p=process.env.TRADEBOT_CONFIG__METRICS__PORT||9464;require('http').get('http://127.0.0.1:'+p+'/healthz',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).setTimeout(4000,()=>process.exit(1))"]

# node runs as PID 1 (exec form, no shell in between), so SIGTERM reaches the daemon, whose
# lifecycle stops components in reverse order within shutdown.graceMs. PID 1 gets no default
# signal handlers from the kernel: the daemon installs its own SIGTERM/SIGINT handlers. Its only
# child processes are strategy guests (setpriv/unshare/node), each waited for by the daemon, which
# kills a guest before its unshare parent so that unshare reaps it. Only a guest whose unshare was
# killed from outside (by hand, or by the OOM killer) is reparented to PID 1, and node does not reap
# processes it did not start: `docker run --init` (tini) reaps such a leftover if that matters to you.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js", "run", "--config", "/app/config/live.yaml"]
