#!/usr/bin/env bash
# Builds the S3 gateway the S3 tests run against (versitygw, POSIX backend) into .cache/bin, once:
# the binary is reused while its stamp matches the pinned version. Needs the Go toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSITYGW_VERSION=v1.8.0
BIN_DIR="$PWD/.cache/bin"
STAMP="$BIN_DIR/versitygw.stamp"
if [[ -x "$BIN_DIR/versitygw" && "$(cat "$STAMP" 2>/dev/null)" == "$VERSITYGW_VERSION" ]]; then exit 0; fi
command -v go >/dev/null || { echo "go is needed to build versitygw $VERSITYGW_VERSION into $BIN_DIR" >&2; exit 1; }
echo "Building versitygw $VERSITYGW_VERSION into $BIN_DIR (first run only; a minute or two)..."
mkdir -p "$BIN_DIR"
GOBIN="$BIN_DIR" GOTOOLCHAIN=local go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
echo "$VERSITYGW_VERSION" >"$STAMP"
