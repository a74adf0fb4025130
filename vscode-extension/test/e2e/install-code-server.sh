#!/usr/bin/env bash
# Installs code-server (a real VS Code, server build) once per machine, into $E2E_CACHE (default
# $XDG_CACHE_HOME/gmonlens-tests/e2e, shared by every clone: a fresh clone, as CI's, skips the
# ~70 s install). Idempotent: a stamp file records the installed version; a second run returns at
# once; concurrent runs wait on a lock file while one installs.
# Exit 0 = installed; exit 3 = cannot be installed here (reason printed on stderr).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/../.." && pwd)"
VERSION="${CODE_SERVER_VERSION:-4.100.3}"
CACHE="${E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gmonlens-tests/e2e}"
DEST="$CACHE/code-server-$VERSION"
STAMP="$DEST/.installed"
BIN="$DEST/node_modules/.bin/code-server"

mkdir -p "$CACHE"
exec 9>"$CACHE/code-server-$VERSION.lock"
flock 9

if [ -f "$STAMP" ] && [ -x "$BIN" ]; then
  echo "$BIN"
  exit 0
fi

skip() { echo "code-server cannot be installed: $*" >&2; exit 3; }
command -v node >/dev/null || skip "node is not installed"
command -v npm >/dev/null || skip "npm is not installed"
node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' || skip "code-server $VERSION needs node >= 20"
command -v rg >/dev/null || skip "ripgrep (Debian package ripgrep) is not installed"
command -v g++ >/dev/null && command -v make >/dev/null || skip "build-essential is not installed"
command -v pkg-config >/dev/null || skip "pkg-config is not installed"
for lib in krb5-gssapi libsecret-1 xkbfile x11; do
  pkg-config --exists "$lib" || skip "pkg-config finds no $lib (Debian: libkrb5-dev libsecret-1-dev libxkbfile-dev libx11-dev)"
done

rm -rf "$DEST"
mkdir -p "$DEST/tmp"
# @vscode/ripgrep's postinstall downloads rg from a host we may not reach: seed its cache with the
# system's rg (it looks for this exact file name in $TMPDIR/vscode-ripgrep-cache-<version>/).
for rgver in 1.15.11 1.15.10 1.15.9; do
  mkdir -p "$DEST/tmp/vscode-ripgrep-cache-$rgver"
  for asset in ripgrep-v13.0.0-10-x86_64-unknown-linux-musl ripgrep-v13.0.0-13-x86_64-unknown-linux-musl; do
    tar -C "$(dirname "$(command -v rg)")" -czf "$DEST/tmp/vscode-ripgrep-cache-$rgver/$asset.tar.gz" rg
  done
done
echo '{"name":"gmonlens-e2e-code-server","private":true}' >"$DEST/package.json"
echo "installing code-server $VERSION into $DEST (a few minutes, once)" >&2
if ! (cd "$DEST" && TMPDIR="$DEST/tmp" npm_config_unsafe_perm=true npm_config_yes=true \
      npm_config_nodedir=/usr npm install --no-audit --no-fund --no-save \
      "code-server@$VERSION" --foreground-scripts >"$DEST/install.log" 2>&1); then
  tail -n 30 "$DEST/install.log" >&2
  skip "npm install code-server@$VERSION failed (log: $DEST/install.log)"
fi
[ -x "$BIN" ] || skip "npm install finished but $BIN is missing"
rm -rf "$DEST/tmp"
touch "$STAMP"
echo "$BIN"
