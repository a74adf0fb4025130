#!/usr/bin/env bash
# Fills bundled/native with capstone for one VS Code target: the py3-none wheel of
# python/requirements-native.txt for that platform, from PyPI (pip download --only-binary), unpacked
# (the Python binding plus its compiled library in capstone/lib; headers dropped; the license kept
# in the dist-info). `none` empties it (the platform-neutral .vsix). python/launch.py puts
# bundled/native on sys.path when its library loads. Wheels are cached in .build-cache/native/.
# On the host's own target (HOST_TARGET), the unpacked capstone must import and decode.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(cd .. && pwd)"
TARGET="${1:?usage: bundle-native.sh TARGET|none}"
OUT=bundled/native
if [ -x "$ROOT/.venv/bin/python" ]; then DEFAULT_PY="$ROOT/.venv/bin/python"; else DEFAULT_PY=python3; fi
PY="${PYTHON:-$DEFAULT_PY}"

rm -rf "$OUT"
[ "$TARGET" = none ] && exit 0
case "$TARGET" in  # capstone publishes no wheel for linux-armhf or win32-arm64
  linux-x64)    PLATFORM=manylinux2014_x86_64 ;;
  linux-arm64)  PLATFORM=manylinux2014_aarch64 ;;
  alpine-x64)   PLATFORM=musllinux_1_2_x86_64 ;;
  alpine-arm64) PLATFORM=musllinux_1_2_aarch64 ;;
  darwin-x64)   PLATFORM=macosx_10_9_x86_64 ;;
  darwin-arm64) PLATFORM=macosx_11_0_arm64 ;;
  win32-x64)    PLATFORM=win_amd64 ;;
  *) echo "bundle-native.sh: no capstone wheel for the target $TARGET" >&2; exit 2 ;;
esac
case "$TARGET" in
  darwin-*) LIBRARY=libcapstone.dylib ;;
  win32-*)  LIBRARY=capstone.dll ;;
  *)        LIBRARY=libcapstone.so ;;
esac

WHEELS=.build-cache/native/$TARGET
if [ ! -f "$WHEELS/.stamp" ] || [ python/requirements-native.txt -nt "$WHEELS/.stamp" ]; then
  rm -rf "$WHEELS"
  mkdir -p "$WHEELS"
  "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: --require-hashes \
    --platform "$PLATFORM" --implementation py --python-version 3.10 \
    -d "$WHEELS" -r python/requirements-native.txt
  touch "$WHEELS/.stamp"
fi
shopt -s nullglob
wheels=("$WHEELS"/capstone-*.whl)
[ "${#wheels[@]}" -eq 1 ] || { echo "bundle-native.sh: expected one capstone wheel in $WHEELS" >&2; exit 1; }

mkdir -p "$OUT"
"$PY" -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "${wheels[0]}" "$OUT"
rm -rf "$OUT/capstone/include" "$OUT"/capstone.libs
find "$OUT" -name '__pycache__' -type d -prune -exec rm -rf {} +
[ -f "$OUT/capstone/lib/$LIBRARY" ] || { echo "bundle-native.sh: $OUT/capstone/lib/$LIBRARY missing" >&2; exit 1; }

if [ "$TARGET" = "${HOST_TARGET:-}" ]; then  # what python/launch.py does, with no site-packages
  "$PY" -B -I -S -c "
import sys
sys.path.insert(0, '$PWD/$OUT')
import capstone
assert capstone.__file__.startswith('$PWD/$OUT/'), capstone.__file__
cs = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
assert [i.mnemonic for i in cs.disasm(b'\x90\xc3', 0)] == ['nop', 'ret']
"
fi
echo "bundled/native ($TARGET): $(du -sh "$OUT" | cut -f1), $(find "$OUT" -type f | wc -l) files"
