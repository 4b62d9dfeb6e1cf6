#!/usr/bin/env bash
# Builds a Go tool the tests need into .cache/bin, once: the binary is reused while its stamp
# matches the pinned version (and build flags). Needs the Go toolchain.
#   scripts/install-go-tool.sh <binary> <package@version> [go install flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
NAME="$1"
PACKAGE="$2"
shift 2
BIN_DIR="$PWD/.cache/bin"
STAMP="$BIN_DIR/$NAME.stamp"
WANTED="$PACKAGE $*"
if [[ -x "$BIN_DIR/$NAME" && "$(cat "$STAMP" 2>/dev/null)" == "$WANTED" ]]; then exit 0; fi
command -v go >/dev/null || { echo "go is needed to build $PACKAGE into $BIN_DIR" >&2; exit 1; }
echo "Building $PACKAGE into $BIN_DIR (first run only; a minute or two)..."
mkdir -p "$BIN_DIR"
GOBIN="$BIN_DIR" GOTOOLCHAIN=local go install "$@" "$PACKAGE"
echo "$WANTED" >"$STAMP"
