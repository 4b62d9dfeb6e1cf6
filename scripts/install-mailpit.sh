#!/usr/bin/env bash
# Builds the SMTP server the mail tests send to (Mailpit: it keeps what arrives and lists it over an
# HTTP API) into .cache/bin, once: the binary is reused while its stamp matches the pinned version.
# Needs the Go toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
MAILPIT_VERSION=v1.27.11
BIN_DIR="$PWD/.cache/bin"
STAMP="$BIN_DIR/mailpit.stamp"
if [[ -x "$BIN_DIR/mailpit" && "$(cat "$STAMP" 2>/dev/null)" == "$MAILPIT_VERSION" ]]; then exit 0; fi
command -v go >/dev/null || { echo "go is needed to build mailpit $MAILPIT_VERSION into $BIN_DIR" >&2; exit 1; }
echo "Building mailpit $MAILPIT_VERSION into $BIN_DIR (first run only; a minute or two)..."
mkdir -p "$BIN_DIR"
GOBIN="$BIN_DIR" GOTOOLCHAIN=local go install "github.com/axllent/mailpit@$MAILPIT_VERSION"
echo "$MAILPIT_VERSION" >"$STAMP"
