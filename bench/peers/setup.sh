#!/usr/bin/env bash
# Create one virtual environment per peer tool, installed from its lock file (exact versions
# of everything, frozen from a working install; the peers are not project dependencies).
#   bash bench/peers/setup.sh            # ragas and deepeval
#   bash bench/peers/setup.sh ragas      # one
# Locks: ragas.lock.txt (ragas 0.4.3; langchain-community held below 0.4, whose 0.4 line
# dropped a module ragas 0.4.3 imports), deepeval.lock.txt (deepeval 4.3.1, which declares a
# dependency on wheel: listed, so that `pip check` passes).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(ragas deepeval)
for t in "${tools[@]}"; do
  lock="$here/$t.lock.txt"
  [ -f "$lock" ] || { echo "unknown tool $t (no $lock)" >&2; exit 2; }
  venv="$here/.venv-$t"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $t" 2>/dev/null; then
    echo "$t: $venv already set up"; continue
  fi
  echo "$t: creating $venv from $lock"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$lock"
  "$venv/bin/pip" check --disable-pip-version-check
done
