# Source me. The project's virtual environment (./.venv), installed only when it is missing or
# the project's packaging changed, with progress shown while pip works.
#
#   source scripts/venv.sh && zc_venv_ensure 'test'   # extras, comma-separated ('' for none)
#
# The install is editable, so source edits need no reinstall; what does is pyproject.toml (the
# dependencies, the console script) or another Python. A stamp in .venv records what the last
# successful install was made from: two lines, `key <hash of pyproject.toml and the Python>` and
# `extras <comma-separated list, empty for none>`; a run whose key matches, and whose extras were
# installed, installs nothing. pip's whole output goes to .venv/pip-install.log; its progress
# lines are shown, and on failure the log's last lines, whatever the caller's set -e/pipefail.

_zc_stamp_key() {  # -> "<hash of pyproject.toml, constraints.txt and the python version>"
    { cat pyproject.toml constraints.txt; .venv/bin/python -VV; } | sha256sum | cut -c1-16
}

_zc_stamp_field() {  # NAME -> the stamp's value for NAME (status 1 when there is no such line)
    local name value
    [ -f .venv/.zettelclaw-stamp ] || return 1
    while read -r name value; do
        if [ "$name" = "$1" ]; then
            printf '%s\n' "$value"
            return 0
        fi
    done <.venv/.zettelclaw-stamp
    return 1
}

_zc_extras_clean() {  # "a,,b,a" -> "a,b": sorted, unique, only valid extra names (PEP 685)
    printf '%s\n' "$1" | tr , '\n' \
        | { grep -E '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$' || true; } \
        | sort -u | paste -sd, -
}

_zc_extras_installed() {  # EXTRAS: every extra asked for is in the stamp's list
    local want have extra
    have=$(_zc_stamp_field extras) || return 1
    IFS=, read -r -a want <<<"$1"
    for extra in "${want[@]}"; do
        [ -z "$extra" ] || [[ ",$have," == *",$extra,"* ]] || return 1
    done
}

zc_venv_ensure() {  # EXTRAS
    local extras python=${PYTHON:-python3} spec=. log=.venv/pip-install.log pip_status
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "zettelclaw: needs Python 3.11 or newer ($python is $("$python" -V 2>&1))" >&2
        return 2
    fi
    if [ ! -x .venv/bin/python ] && ! "$python" -m venv .venv; then
        echo "zettelclaw: cannot make a virtual environment in $(pwd)/.venv with $python" \
            "(on Debian and Ubuntu: apt-get install python3-venv)" >&2
        rm -rf .venv
        return 1
    fi
    if [ -x .venv/bin/zettelclaw ] && [ "$(_zc_stamp_field key)" = "$(_zc_stamp_key)" ] \
        && _zc_extras_installed "$1"; then
        return 0
    fi
    # Keep the extras installed before, so that serve after test does not drop test's extras.
    extras=$(_zc_extras_clean "$1,$(_zc_stamp_field extras || true)")
    [ -z "$extras" ] || spec=".[$extras]"
    echo "zettelclaw: installing $spec into $(pwd)/.venv (once; about a minute on a new machine)" >&2
    # pip's whole output into the log; its own lines, one per package fetched or built, on
    # stderr so that a long install shows it is moving. pip's status comes back on fd 3, so that
    # neither set -e nor pipefail ends the caller before the message below.
    pip_status=$( { { .venv/bin/python -m pip install --disable-pip-version-check -c constraints.txt -e "$spec" 2>&1
                      echo "$?" >&3; } \
        | tee "$log" \
        | { grep --line-buffered -E '^(Collecting|Building|Installing collected|Successfully)' \
            || true; } \
        | sed -u 's/^/  /' >&2; } 3>&1 )
    if [ "$pip_status" != 0 ] || [ ! -x .venv/bin/zettelclaw ]; then
        echo "zettelclaw: the install into .venv failed (pip exited ${pip_status:-?}); the end of" \
            "its output ($(pwd)/$log):" >&2
        tail -n 25 "$log" | sed 's/^/  | /' >&2
        return 1
    fi
    printf 'key %s\nextras %s\n' "$(_zc_stamp_key)" "$extras" >.venv/.zettelclaw-stamp
}
