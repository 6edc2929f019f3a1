#!/usr/bin/env bash
# End-to-end test of the OpenClaw plugin against a real OpenClaw gateway, offline (the named checks
# of tests/e2e/openclaw_e2e.py; ZC_E2E_ONLY=write_receipts,forget_tool runs only those), then the soak (tests/e2e/openclaw_soak.py: hot reloads, a killed
# sidecar, init again, a gateway restart, a fact told after each; ZC_E2E_SOAK=0 skips it). Installs Node 24 and OpenClaw into the cache on first use
# (scripts/openclaw-env.sh), runs everything in a temporary directory and removes it after, with
# every process it started (KEEP=1 keeps the directory for a look). Needs ./.venv (scripts/test
# makes it) for the driver and the fakes; the sidecar and the plugin come from the built wheel.
# Prints "N passed, M failed" last; exits 1 when a check failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
# shellcheck source=../../scripts/openclaw-env.sh
source scripts/openclaw-env.sh
zc_openclaw_ensure

if [ ! -x .venv/bin/python ]; then
    echo "tests/e2e/run.sh: no .venv: run scripts/test first (the driver and the fakes run there)" >&2
    exit 2
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/zc-e2e.XXXXXX")
driver=

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    [ -n "$driver" ] && kill -TERM "$driver" 2>/dev/null && wait "$driver" 2>/dev/null
    for pgids in "$dir/pgids" "$dir/soak/pgids"; do  # whatever a driver started and could not stop
        [ -f "$pgids" ] || continue
        while read -r pgid; do kill -KILL -- "-$pgid" 2>/dev/null || true; done <"$pgids"
    done
    if [ "${KEEP:-}" = 1 ]; then
        echo "tests/e2e/run.sh: kept $dir" >&2
    else
        rm -rf "$dir"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The sidecar under test is the released one: the wheel built from the sdist, installed into a
# new venv outside the clone (scripts/package); the plugin is the copy that wheel carries.
scripts/package "$dir/dist"

# In the background so that a signal reaches the trap at once; a driver stops its own processes.
drive() {
    "$repo/.venv/bin/python" "$@" --node-bin "$ZC_NODE_BIN" \
        --openclaw-package "$ZC_OPENCLAW_PACKAGE" --sidecar-venv "$dir/dist/venv" &
    driver=$!
    set +e
    wait "$driver"
    local code=$?
    set -e
    driver=
    return "$code"
}
status=0
drive tests/e2e/openclaw_e2e.py --dir "$dir" ${ZC_E2E_ONLY:+--only "$ZC_E2E_ONLY"} || status=1
if [ "${ZC_E2E_SOAK:-1}" != 0 ]; then
    mkdir -p "$dir/soak"
    drive tests/e2e/openclaw_soak.py --dir "$dir/soak" || status=1
fi
exit "$status"
