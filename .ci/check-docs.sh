#!/usr/bin/env bash
# Checks that the README's set-up commands and the bundled examples are true as written:
#   - `make run` and `make test` each appear as a line of their own in a fenced code block of README.md;
#   - every examples/*.json passes `sluice check-config`.
# Needs the debug binary that `make test` builds (.build/debug/sluice); SLUICE_BIN picks another.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

status=0
fail() { echo "check-docs: $*" >&2; status=1; }

# The lines inside ``` fences, nothing else.
fenced=$(awk '/^```/ { inside = !inside; next } inside { print }' README.md)
for command in "make run" "make test"; do
    if ! grep -qxF "$command" <<<"$fenced"; then
        fail "README.md has no fenced line '$command'"
    fi
done

sluice=${SLUICE_BIN:-.build/debug/sluice}
if [ ! -x "$sluice" ]; then
    echo "check-docs: $sluice not found; run make test (or swift build) first" >&2
    exit 2
fi
# Secrets the examples read from the environment (examples/README.md); dummy values are enough to validate.
export NAS_PASSWORD=${NAS_PASSWORD:-check-docs-dummy}
for name in S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY ONEDRIVE_CLIENT_ID; do
    export "$name=${!name:-check-docs-dummy}"
done
for example in examples/*.json; do
    if ! "$sluice" check-config "$example"; then
        fail "$example does not pass sluice check-config"
    fi
done

[ "$status" -eq 0 ] && echo "check-docs: README set-up commands and examples OK"
exit "$status"
