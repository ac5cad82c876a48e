# The project's commands. Each target does its own set-up, so they work on a fresh clone.
NODE_MODULES_STAMP := node_modules/.install-stamp
# make run HOST=… PORT=… DATA=… pass flags to the server; without them, config/default.json and the
# DICECHESS_* environment decide (flags would override the environment). Only values given on make's
# command line count, so an unrelated PORT exported in the shell does not shadow DICECHESS_PORT.
given = $(if $(filter command line override,$(origin $(1))),$(2) $($(1)))

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
	node dist/src/cli.js serve $(strip $(call given,HOST,--host) $(call given,PORT,--port) $(call given,DATA,--data))

bench: build
	node dist/bench/run.js

clean:
	rm -rf dist node_modules
