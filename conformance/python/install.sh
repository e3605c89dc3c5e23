#!/usr/bin/env bash
# Installs the Python conformance suite's pinned packages (requirements.txt, constraints.txt) into
# .venv beside this file. Idempotent: a no-op when the venv already holds exactly these pins.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
stamp="$venv/.install-stamp"
python="${PYTHON:-python3}"

want="$(cat "$here/requirements.txt" "$here/constraints.txt" | sha256sum | cut -d' ' -f1) $("$python" --version 2>&1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && "$venv/bin/python" -c "import azure.cosmos, pytest" 2>/dev/null; then
  exit 0
fi

rm -rf "$venv"
if ! "$python" -m venv "$venv" 2>/dev/null; then
  # Debian's python3 needs python3-venv for `python3 -m venv`.
  if command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
    apt-get install -y -qq python3-venv >/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null; }
    rm -rf "$venv"
    "$python" -m venv "$venv"
  else
    echo "install.sh: '$python -m venv' failed (install python3-venv)" >&2
    exit 1
  fi
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  -r "$here/requirements.txt" -c "$here/constraints.txt"
echo "$want" > "$stamp"
