# Sourced by scripts/serve, scripts/test and .ci/run: makes .venv and keeps it in step with
# requirements*.txt. Sets ROOT and PY.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    echo "Creating .venv ..."
    "${PYTHON:-python3}" -m venv "$VENV"
fi

_requirements_hash="$(cat "$ROOT/requirements.txt" "$ROOT/requirements-dev.txt" | sha256sum | cut -d' ' -f1)"
_requirements_stamp="$VENV/.requirements.sha256"
if [ "$(cat "$_requirements_stamp" 2>/dev/null)" != "$_requirements_hash" ]; then
    echo "Installing requirements into .venv ..."
    "$PY" -m pip install --quiet --disable-pip-version-check -r "$ROOT/requirements-dev.txt"
    echo "$_requirements_hash" >"$_requirements_stamp"
fi
unset _requirements_hash _requirements_stamp
