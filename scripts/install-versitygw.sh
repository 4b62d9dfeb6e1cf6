#!/usr/bin/env bash
# Builds the S3 gateway the S3 tests run against (versitygw, POSIX backend) into .cache/bin, once
# (see install-go-tool.sh).
exec bash "$(dirname "$0")/install-go-tool.sh" versitygw github.com/versity/versitygw/cmd/versitygw@v1.8.0
