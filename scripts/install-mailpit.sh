#!/usr/bin/env bash
# Builds the SMTP server the mail tests send to (Mailpit: it keeps what arrives and lists it over an
# HTTP API) into .cache/bin, once (see install-go-tool.sh).
exec bash "$(dirname "$0")/install-go-tool.sh" mailpit github.com/axllent/mailpit@v1.27.11
