#!/usr/bin/env bash
# Fills bundled/libs with the gmonlens packages (from this checkout) and their pure-Python
# dependencies (python/requirements.txt), as the .vsix carries them.
# The pip part is cached: it reruns only when python/requirements.txt changes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(cd .. && pwd)"
LIBS=bundled/libs
DEPS=.build-cache/python-deps
if [ -x "$ROOT/.venv/bin/python" ]; then DEFAULT_PY="$ROOT/.venv/bin/python"; else DEFAULT_PY=python3; fi
PY="${PYTHON:-$DEFAULT_PY}"
STAMP="$DEPS/.stamp"

if [ ! -f "$STAMP" ] || [ python/requirements.txt -nt "$STAMP" ]; then
  rm -rf "$DEPS"
  mkdir -p "$DEPS"
  "$PY" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps --no-warn-script-location \
    --target "$DEPS" -r python/requirements.txt
  # Pure Python only: pyyaml's optional C accelerator (yaml/_yaml*.so) goes; yaml falls back to Python.
  find "$DEPS" \( -name '*.so' -o -name '*.pyd' -o -name '*.dylib' \) -delete
  find "$DEPS" -name '__pycache__' -type d -prune -exec rm -rf {} +
  rm -rf "$DEPS/bin"
  touch "$STAMP"
fi

rm -rf "$LIBS"
mkdir -p "$LIBS"
cp -R "$DEPS"/. "$LIBS"/
rm -f "$LIBS/.stamp"
for pkg in "$ROOT/analysis/gmonlens" "$ROOT/server/gmonlens_ide" "$ROOT/server/gmonlens_lsp" "$ROOT/server/gmonlens_mcp" "$ROOT/server/gmonlens_cli"; do
  [ -d "$pkg" ] || { echo "missing $pkg" >&2; exit 1; }
  cp -R "$pkg" "$LIBS/"
done
find "$LIBS" -name '__pycache__' -type d -prune -exec rm -rf {} +
# Smoke check: the bundle imports with no site-packages at all (what `python -I launch.py` sees).
"$PY" -B -I -S -c "
import importlib, pkgutil, sys
sys.path.insert(0, '$LIBS')
import gmonlens, gmonlens_ide, gmonlens_lsp, gmonlens_mcp, gmonlens_cli, yaml
assert not yaml.__with_libyaml__
for pkg in (gmonlens, gmonlens_ide, gmonlens_lsp, gmonlens_mcp, gmonlens_cli):
    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):
        if m.name.endswith('__main__'):
            continue
        try:
            importlib.import_module(m.name)
        except ImportError as e:
            if 'capstone' not in str(e):
                raise SystemExit(f'bundle check: {m.name}: {e}')
"
echo "bundled/libs: $(du -sh "$LIBS" | cut -f1), $(find "$LIBS" -type f | wc -l) files"
