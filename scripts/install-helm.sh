#!/usr/bin/env bash
# Builds helm (for scripts/check-chart.sh) into .cache/bin, once (see install-go-tool.sh).
set -euo pipefail
HELM_VERSION=v3.16.4
# `go install` skips the ldflags of helm's release builds, leaving `helm version`
# empty and the default Kubernetes version at 1.20 (below the chart's
# kubeVersion). Set them as the release Makefile does (helm 3.16 is built against
# client-go 0.31, i.e. Kubernetes 1.31).
HELM_LDFLAGS="-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
for pkg in chartutil lint/rules; do
  HELM_LDFLAGS+=" -X helm.sh/helm/v3/pkg/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/$pkg.k8sVersionMinor=31"
done
# Rebuilt when the pin or the flags change (install-go-tool.sh stamps both).
exec bash "$(dirname "$0")/install-go-tool.sh" helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" -ldflags "$HELM_LDFLAGS"
