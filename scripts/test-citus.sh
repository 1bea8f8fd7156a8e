#!/usr/bin/env bash
# `make test-citus`: the integration tests listed in vitest.citus.config.ts against a real Citus cluster (a
# coordinator and two workers on loopback, docs/scaling.md). The cluster is built (once per machine) and run
# by CITUS_CLUSTER (default ../shared/tools/citus-cluster) in a directory of its own, on CITUS_PORT (default
# 9710, so a developer's cluster on 9700 is left alone), and stopped when the tests end.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
cluster="${CITUS_CLUSTER:-../shared/tools/citus-cluster}"
[ -x "$cluster" ] || { echo "test-citus: no Citus cluster tool at $cluster (set CITUS_CLUSTER)" >&2; exit 1; }
export CITUS_PORT="${CITUS_PORT:-9710}"
dir=$(mktemp -d /tmp/intake-citus-test.XXXXXX)
chmod 755 "$dir"
stop() { "$cluster" stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap stop EXIT
url=$("$cluster" start "$dir" | sed -n 's/^DATABASE_URL=//p')
[ -n "$url" ] || { echo "test-citus: the cluster did not start" >&2; exit 1; }
echo "Citus cluster at $url"
DATABASE_URL="$url" INTAKE_TEST_CITUS=1 npx vitest run --config vitest.citus.config.ts "$@"
