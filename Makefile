# The project's commands. Each target does its own set-up, so they work on a fresh clone.
NODE_MODULES_STAMP := node_modules/.install-stamp
HOST ?= 127.0.0.1
PORT ?= 8080

.PHONY: install build typecheck test run bench clean

$(NODE_MODULES_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: $(NODE_MODULES_STAMP)

build: install
	npx tsc -p tsconfig.json

typecheck: install
	npx tsc -p tsconfig.json --noEmit

# The build type-checks everything (src, test, bench); tsc fails the build on any type error.
test: build
	node scripts/test.mjs

run: build
	node dist/src/cli.js serve --host $(HOST) --port $(PORT) --data ./data

bench: build
	node dist/bench/run.js

clean:
	rm -rf dist node_modules
