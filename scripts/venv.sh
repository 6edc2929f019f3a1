# Source me. The project's virtual environment (./.venv), installed only when it is missing or
# the project's packaging changed, with progress shown while pip works.
#
#   source scripts/venv.sh && zc_venv_ensure 'test'   # extras, comma-separated
#
# The install is editable, so source edits need no reinstall; what does is pyproject.toml (the
# dependencies, the console script) or another Python. A stamp in .venv records what the last
# successful install was made from (a hash of pyproject.toml, the Python, the extras); a run whose
# stamp matches, and whose extras were installed, installs nothing.

_zc_stamp_key() {  # -> "<hash of pyproject.toml and python version>"
    { cat pyproject.toml; .venv/bin/python -VV; } | sha256sum | cut -c1-16
}

_zc_extras_installed() {  # EXTRAS: every extra asked for is in the stamp's list
    local want have
    have=$(cut -d' ' -f2 .venv/.zettelclaw-stamp 2>/dev/null) || return 1
    IFS=, read -r -a want <<<"$1"
    for extra in "${want[@]}"; do
        [ -z "$extra" ] || [[ ",$have," == *",$extra,"* ]] || return 1
    done
}

zc_venv_ensure() {  # EXTRAS
    local extras=$1 python=${PYTHON:-python3} spec=. stamp
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "zettelclaw: needs Python 3.11 or newer ($python is $("$python" -V 2>&1))" >&2
        return 2
    fi
    [ -x .venv/bin/python ] || "$python" -m venv .venv || return 1
    if [ -x .venv/bin/zettelclaw ] && [ -f .venv/.zettelclaw-stamp ] \
        && [ "$(cut -d' ' -f1 .venv/.zettelclaw-stamp)" = "$(_zc_stamp_key)" ] \
        && _zc_extras_installed "$extras"; then
        return 0
    fi
    # Keep the extras installed before, so that serve after test does not drop test's extras.
    if [ -f .venv/.zettelclaw-stamp ]; then
        extras=$(printf '%s,%s' "$extras" "$(cut -d' ' -f2 .venv/.zettelclaw-stamp)" \
            | tr , '\n' | sed '/^$/d' | sort -u | paste -sd, -)
    fi
    [ -z "$extras" ] || spec=".[$extras]"
    echo "zettelclaw: installing $spec into $(pwd)/.venv (once; about a minute on a new machine)" >&2
    # pip's own lines, one per package fetched or built, so a long install shows it is moving
    .venv/bin/python -m pip install --disable-pip-version-check -e "$spec" 2>&1 \
        | { grep --line-buffered -E '^(Collecting|Building|Installing collected|Successfully|ERROR|error)' || true; } \
        | sed -u 's/^/  /' >&2
    if [ "${PIPESTATUS[0]}" != 0 ] || [ ! -x .venv/bin/zettelclaw ]; then
        echo "zettelclaw: the install into .venv failed (pip's lines above say why)" >&2
        return 1
    fi
    stamp="$(_zc_stamp_key) ${extras:--}"
    printf '%s\n' "$stamp" >.venv/.zettelclaw-stamp
}
