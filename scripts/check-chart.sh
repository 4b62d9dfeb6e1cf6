#!/usr/bin/env bash
# Checks the Helm chart in helm/pwpush without a cluster:
#   - helm lint --strict with every CI values file;
#   - helm template with the defaults (+ the two required secrets) and with
#     every helm/pwpush/ci/*-values.yaml, each output validated offline by
#     scripts/validate-manifests.mjs (Kubernetes schemas via kubernetes-models,
#     unknown fields, pod hardening, hook ordering);
#   - negative cases that must fail (so the checks above are known to bite);
#   - with the ingress on and no other values, the built server run with the rendered
#     environment (scripts/check-chart-ingress.mjs): it trusts the ingress, /metrics is not
#     routed by it, readiness ignores Redis;
#   - the chart README documents every value.
# Run from anywhere: bash scripts/check-chart.sh. Exits non-zero on any failure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Render for a current cluster explicitly, so results do not depend on how the
# helm binary was built.
KUBE_VERSION=1.31.0
CHART=helm/pwpush
BIN_DIR="$PWD/.cache/bin"
HELM="$BIN_DIR/helm"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
section() { printf '\n== %s\n' "$*"; }

# ---------------------------------------------------------------- tools

bash scripts/install-helm.sh
echo "helm: $("$HELM" version --short)"

if [[ ! -d node_modules/kubernetes-models || ! -d node_modules/@kubernetes-models/prometheus-operator || ! -d node_modules/yaml ]]; then
  echo "node_modules lacks kubernetes-models, @kubernetes-models/prometheus-operator or yaml: run npm ci first" >&2
  exit 1
fi

VALIDATE=(node scripts/validate-manifests.mjs)
# Values that satisfy the chart's `required` secrets, for the default-values render.
REQUIRED_SETS=(
  --set "secrets.databaseUrl=mysql://pwpush:secret@mysql:3306/pwpush"
  --set "secrets.masterKey=$(printf '%064d' 0)"
)
CI_VALUES=("$CHART"/ci/*-values.yaml)

render() { "$HELM" template pwpush "$CHART" --namespace pwpush --kube-version "$KUBE_VERSION" "$@"; }

# ------------------------------------------------------- validator self-test

section "manifest validator self-test"
if "${VALIDATE[@]}" --self-test; then
  pass "validate-manifests --self-test"
else
  fail "validate-manifests --self-test"
fi

# --------------------------------------------------------------------- lint

section "helm lint --strict"
for values in "${CI_VALUES[@]}"; do
  if "$HELM" lint --strict "$CHART" --kube-version "$KUBE_VERSION" -f "$values" >"$WORK/lint.log" 2>&1; then
    pass "helm lint --strict -f $values"
  else
    cat "$WORK/lint.log"
    fail "helm lint --strict -f $values"
  fi
done

# ---------------------------------------------------- render and validate

section "helm template + offline validation"
check_render() { # name, helm template args...
  local name="$1"
  shift
  local out="$WORK/$name.yaml"
  if ! render "$@" >"$out" 2>"$WORK/render.err"; then
    cat "$WORK/render.err"
    fail "render $name"
    return
  fi
  # The chart must also render its test pod; --skip-tests is not used.
  if "${VALIDATE[@]}" --label "$name" "$out"; then
    pass "render + validate $name"
  else
    fail "render + validate $name"
  fi
}

check_render "defaults" "${REQUIRED_SETS[@]}"
for values in "${CI_VALUES[@]}"; do
  check_render "$(basename "$values" .yaml)" -f "$values"
done

# --------------------------------------------------------- chart behaviour

section "chart behaviour"
# expect_in_render description template|all perl-regex present|absent helm-args...
# The regex sees the whole render at once (grep -Pz), so it can span lines; use
# (?m) for ^/$ at line boundaries.
expect_in_render() {
  local description="$1" template="$2" regex="$3" want="$4"
  shift 4
  local only=()
  [[ "$template" == all ]] || only=(--show-only "$template")
  if ! render "${only[@]}" "$@" >"$WORK/behaviour.yaml" 2>"$WORK/behaviour.err"; then
    cat "$WORK/behaviour.err"
    fail "$description (render failed)"
    return
  fi
  local found=absent
  if grep -Pzq -- "$regex" "$WORK/behaviour.yaml"; then found=present; fi
  if [[ "$found" == "$want" ]]; then pass "$description"; else fail "$description (/$regex/ is $found)"; fi
}
MIN=(-f "$CHART/ci/minimal-values.yaml")
PROD=(-f "$CHART/ci/production-values.yaml")
FILES_S3=(-f "$CHART/ci/files-s3-values.yaml")
MIGRATE_ENV='name: DB_MIGRATE_ON_START\n(\s*#.*\n)*\s*value: '
expect_in_render "migration hook on: the Deployment sets DB_MIGRATE_ON_START=false" templates/deployment.yaml \
  "${MIGRATE_ENV}\"false\"" present "${MIN[@]}"
expect_in_render "migration hook off: pods migrate at start-up (DB_MIGRATE_ON_START=true)" templates/deployment.yaml \
  "${MIGRATE_ENV}\"true\"" present "${MIN[@]}" --set migrations.enabled=false
expect_in_render "migration hook off: no Job" all \
  '(?m)^kind: Job$' absent "${MIN[@]}" --set migrations.enabled=false
expect_in_render "existingSecret: the migration Job reads it directly" templates/migrations-job.yaml \
  '(?m)secretName: pwpush-secrets$' present "${PROD[@]}"
expect_in_render "existingSecret: the chart renders no Secret" all \
  '(?m)^kind: Secret$' absent "${PROD[@]}"
expect_in_render "HPA on: the Deployment leaves replicas to it" templates/deployment.yaml \
  '(?m)^  replicas:' absent "${PROD[@]}"
expect_in_render "HPA off: the Deployment sets replicas" templates/deployment.yaml \
  '(?m)^  replicas: 1$' present "${MIN[@]}"
expect_in_render "a PostgreSQL URL (with sslmode) is accepted and lands in the Secret" templates/secret.yaml \
  '(?m)^  DATABASE_URL: "cG9zdGdyZXM6Ly9wd3B1c2g6c2VjcmV0QHBvc3RncmVzOjU0MzIvcHdwdXNoP3NzbG1vZGU9cmVxdWlyZQ=="$' present "${MIN[@]}" \
  --set-string 'secrets.databaseUrl=postgres://pwpush:secret@postgres:5432/pwpush?sslmode=require'
expect_in_render "a mysql2:// URL (IPv6 host, ssl-mode and ssl-ca) is accepted and lands in the Secret" templates/secret.yaml \
  '(?m)^  DATABASE_URL: "bXlzcWwyOi8vcHdwdXNoOnNlY3JldEBbZmQwMDo6NV06MzMwNi9wd3B1c2g/c3NsLW1vZGU9VkVSSUZZX0lERU5USVRZJnNzbC1jYT0vZXRjL3B3cHVzaC9jYS5wZW0="$' present "${MIN[@]}" \
  --set-string 'secrets.databaseUrl=mysql2://pwpush:secret@[fd00::5]:3306/pwpush?ssl-mode=VERIFY_IDENTITY&ssl-ca=/etc/pwpush/ca.pem'

# Secret settings reach the app as files (<NAME>_FILE), never as environment values.
secret_file_env() { printf '%s' "- name: ${1}_FILE\\n\\s*value: /run/secrets/pwpush/${1}\\n"; }
secret_volume() { printf '%s' "- name: secrets\\n\\s*secret:\\n\\s*secretName: ${1}\\n(\\s*#.*\\n)?\\s*defaultMode: 288\\n\\s*items:\\n"; }
SECRET_MOUNT='- name: secrets\n\s*mountPath: /run/secrets/pwpush\n\s*readOnly: true\n'
expect_in_render "secrets as files: no secret value in any env (no secretKeyRef)" all \
  'secretKeyRef' absent -f "$CHART/ci/servicemonitor-values.yaml"
expect_in_render "secrets as files: the Deployment names each file with <NAME>_FILE" templates/deployment.yaml \
  "$(secret_file_env DATABASE_URL)(.*\n)*\s*$(secret_file_env PWPUSH_MASTER_KEY)" present "${MIN[@]}"
expect_in_render "secrets as files: the chart's Secret mounted read-only (0440) with one file per key" templates/deployment.yaml \
  "(?s)${SECRET_MOUNT}.*$(secret_volume pwpush)\s*- key: DATABASE_URL\n\s*path: DATABASE_URL\n\s*- key: PWPUSH_MASTER_KEY\n\s*path: PWPUSH_MASTER_KEY\n(?!\s*- key:)" \
  present "${MIN[@]}"
expect_in_render "secrets as files: the migration Job mounts its hook copy of the Secret" templates/migrations-job.yaml \
  "(?s)$(secret_file_env DATABASE_URL).*${SECRET_MOUNT}.*$(secret_volume pwpush-migrations)\s*- key: DATABASE_URL\n" present "${MIN[@]}"
expect_in_render "secrets as files: optional settings only when given (chart Secret without them)" all \
  'REDIS_URL|METRICS_TOKEN|PWPUSH_MASTER_KEY_PREVIOUS' absent "${MIN[@]}"
expect_in_render "secrets as files: every optional setting given is a file (chart Secret)" templates/deployment.yaml \
  "$(secret_file_env METRICS_TOKEN)(.*\n)*\s*$(secret_file_env PWPUSH_MASTER_KEY_PREVIOUS)(.*\n)*\s*$(secret_file_env PWP__FILES__S3__SECRET_ACCESS_KEY)\s*$(secret_file_env REDIS_URL)" \
  present -f "$CHART/ci/servicemonitor-values.yaml"
expect_in_render "existingSecret: its mapped keys become the settings' files" templates/deployment.yaml \
  "(?s)$(secret_volume pwpush-secrets)\s*- key: database-url\n\s*path: DATABASE_URL\n\s*- key: master-key\n\s*path: PWPUSH_MASTER_KEY\n\s*- key: s3-access-key-id\n\s*path: PWP__FILES__S3__ACCESS_KEY_ID\n\s*- key: s3-secret-access-key\n\s*path: PWP__FILES__S3__SECRET_ACCESS_KEY\n\s*- key: REDIS_URL\n\s*path: REDIS_URL\n(?!\s*- key:)" \
  present "${FILES_S3[@]}"
expect_in_render "existingSecret: an optional key is read only when named (REDIS_URL named, the others not)" all \
  "(?s)^(?!.*(METRICS_TOKEN|PWPUSH_MASTER_KEY_PREVIOUS)).*$(secret_file_env REDIS_URL)" present "${PROD[@]}"
expect_in_render "existingSecret: the ServiceMonitor sends the key the app reads METRICS_TOKEN from" templates/servicemonitor.yaml \
  '(?m)^\s*name: pwpush-secrets\n\s*key: metrics-token$' present "${PROD[@]}" \
  --set secrets.existingSecretKeys.metricsToken=metrics-token --set metrics.serviceMonitor.enabled=true --set metrics.serviceMonitor.bearerToken.enabled=true

# File attachments (files.*).
FILES_LOCAL=(-f "$CHART/ci/files-local-values.yaml")
DATA_MOUNT='- name: data\n\s*mountPath: /var/lib/pwpush\n'
expect_in_render "files local (default): a PersistentVolumeClaim of 10Gi, kept on uninstall" templates/pvc.yaml \
  '(?s)kind: PersistentVolumeClaim\n.*helm.sh/resource-policy: keep\n.*storage: 10Gi' present "${MIN[@]}"
expect_in_render "files local: DATA_DIR is the volume's mount path" templates/configmap.yaml \
  '(?m)^  DATA_DIR: /var/lib/pwpush\n(.*\n)*  PWP__FILES__STORAGE: local$' present "${MIN[@]}"
expect_in_render "files local: the Deployment mounts the claim at DATA_DIR" templates/deployment.yaml \
  "${DATA_MOUNT}"'(?s).*- name: data\n\s*persistentVolumeClaim:\n\s*claimName: pwpush-files\n' present "${MIN[@]}"
expect_in_render "files local on a PVC: Recreate strategy (one pod on the volume at a time)" templates/deployment.yaml \
  '(?m)^  strategy:\n    type: Recreate\n  selector:' present "${FILES_LOCAL[@]}"
expect_in_render "files local: limits reach the env, numbers not in e-notation" templates/configmap.yaml \
  '(?m)^  PWP__FILES__LINK_LIFETIME_SECONDS: "600"\n  PWP__FILES__MAX_FILE_SIZE: 50MiB\n  PWP__FILES__MAX_FILE_UPLOADS: "5"\n  PWP__FILES__MAX_JSON_BODY_SIZE: 64MiB\n  PWP__FILES__MAX_PUSH_SIZE: "209715200"$' \
  present "${FILES_LOCAL[@]}"
expect_in_render "files local: limits left null stay out of the env" templates/configmap.yaml \
  'PWP__FILES__MAX_|PWP__FILES__LINK_' absent "${MIN[@]}"
expect_in_render "files local: the PVC takes storageClass and accessModes" templates/pvc.yaml \
  '(?m)^    - ReadWriteOncePod\n  storageClassName: "standard-rwo"$' present "${FILES_LOCAL[@]}"
expect_in_render "files local: storageClass \"-\" means storageClassName \"\"" templates/pvc.yaml \
  '(?m)^  storageClassName: ""$' present "${MIN[@]}" --set files.persistence.storageClass=-
expect_in_render "files local, existingClaim: no PVC rendered" all \
  '(?m)^kind: PersistentVolumeClaim$' absent "${MIN[@]}" --set files.persistence.existingClaim=pwpush-data
expect_in_render "files local, existingClaim: the Deployment mounts it" templates/deployment.yaml \
  'claimName: pwpush-data\n' present "${MIN[@]}" --set files.persistence.existingClaim=pwpush-data
expect_in_render "files local, persistence off: an emptyDir at DATA_DIR, no PVC" all \
  '(?s)^(?!.*kind: PersistentVolumeClaim).*'"${DATA_MOUNT}"'.*- name: data\n\s*# [^\n]*\n\s*emptyDir:\n\s*sizeLimit: 10Gi\n' \
  present "${MIN[@]}" --set files.persistence.enabled=false
expect_in_render "files local, persistence off: the strategy value applies again" templates/deployment.yaml \
  '(?m)^    type: RollingUpdate$' present "${MIN[@]}" --set files.persistence.enabled=false
expect_in_render "files s3: storage amazon with bucket, endpoint, path style, prefix" templates/configmap.yaml \
  '(?m)^  PWP__FILES__S3__BUCKET: pwpush-files\n  PWP__FILES__S3__ENDPOINT: https://minio.storage.svc:9000\n  PWP__FILES__S3__FORCE_PATH_STYLE: "true"\n  PWP__FILES__S3__PREFIX: attachments/\n  PWP__FILES__S3__REGION: eu-central-1\n  PWP__FILES__STORAGE: amazon$' \
  present "${FILES_S3[@]}"
expect_in_render "files s3: no volume and no PVC" all \
  '(?m)^kind: PersistentVolumeClaim$|mountPath: /var/lib/pwpush|DATA_DIR' absent "${FILES_S3[@]}"
expect_in_render "files s3 + existingSecret: credentials from the mapped keys, as files" templates/deployment.yaml \
  "$(secret_file_env PWP__FILES__S3__ACCESS_KEY_ID)\s*$(secret_file_env PWP__FILES__S3__SECRET_ACCESS_KEY)" \
  present "${FILES_S3[@]}"
expect_in_render "files s3 + existingSecret: the migration Job gets the credentials too" templates/migrations-job.yaml \
  'key: s3-secret-access-key\n' present "${FILES_S3[@]}"
expect_in_render "files s3 + chart Secret: the credentials are in the Secret" templates/secret.yaml \
  '(?m)^  PWP__FILES__S3__ACCESS_KEY_ID: "Y2ktYWNjZXNzLWtleQ=="\n  PWP__FILES__S3__SECRET_ACCESS_KEY: ' present -f "$CHART/ci/servicemonitor-values.yaml"
expect_in_render "files s3 without keys: no credential env (AWS SDK default chain)" all \
  'PWP__FILES__S3__ACCESS_KEY_ID' absent "${MIN[@]}" --set files.storage=s3 --set files.s3.bucket=pwpush-files
expect_in_render "files local: S3 credentials are neither stored nor passed" all \
  'PWP__FILES__S3__' absent "${MIN[@]}" --set secrets.s3AccessKeyId=a --set secrets.s3SecretAccessKey=b
expect_in_render "files off: PWP__ENABLE_FILE_PUSHES=false, no volume, replicas free" all \
  '(?s)^(?!.*(kind: PersistentVolumeClaim|/var/lib/pwpush|PWP__FILES__STORAGE)).*PWP__ENABLE_FILE_PUSHES: "false"\n' \
  present "${MIN[@]}" --set files.enabled=false --set replicaCount=3

# Mail, webhooks and their retries (mail.*, notifyByEmail.*, webhooks.*, notifications.*).
MAIL=(-f "$CHART/ci/mail-values.yaml")
# The chart's own Secret with mail: minimal values plus an SMTP server with sign-in.
MAIL_CHART_SECRET=("${MIN[@]}" --set mail.smtp.address=smtp.example.com --set mail.smtp.userName=apikey
  --set-string 'mail.sender=pwpush@example.com' --set secrets.smtpPassword=smtp-secret)
expect_in_render "mail off (default): no PWP__MAIL__ setting, and no SMTP password even when given" all \
  'PWP__MAIL__' absent "${MIN[@]}" --set secrets.smtpPassword=smtp-secret
expect_in_render "notification defaults reach the ConfigMap: retries for a day, 500 mails a user a day, https-only webhooks" templates/configmap.yaml \
  '(?m)^  PWP__NOTIFICATIONS__RETRY_FOR_SECONDS: "86400"\n  PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: "500"\n  PWP__NOTIFY_BY_EMAIL__ENABLED: "true"\n(.*\n)*  PWP__WEBHOOKS__ALLOW_HTTP: "false"$' \
  present "${MIN[@]}"
expect_in_render "webhooks: no allow-list unless given" templates/configmap.yaml \
  'PWP__WEBHOOKS__ALLOWED_HOSTS' absent "${MIN[@]}"
expect_in_render "mail on: the SMTP settings, the sender and the limits reach the ConfigMap" templates/configmap.yaml \
  '(?m)^  PWP__MAIL__MAILER_SENDER: \x27"Password Pusher" <pwpush@example.com>\x27\n  PWP__MAIL__SMTP_ADDRESS: smtp.mail.example.com\n  PWP__MAIL__SMTP_AUTHENTICATION: login\n  PWP__MAIL__SMTP_PORT: "2525"\n  PWP__MAIL__SMTP_STARTTLS: "true"\n  PWP__MAIL__SMTP_USER_NAME: apikey\n  PWP__NOTIFICATIONS__RETRY_FOR_SECONDS: "3600"\n  PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: "100"\n' \
  present "${MAIL[@]}"
expect_in_render "webhooks: the allow-list joined with commas" templates/configmap.yaml \
  '(?m)^  PWP__WEBHOOKS__ALLOWED_HOSTS: receiver.tools.svc.cluster.local,10.20.0.0/16$' present "${MAIL[@]}"
expect_in_render "mail + existingSecret: the SMTP password is a file from the named key, never an env value" templates/deployment.yaml \
  "(?s)^(?!.*value: smtp).*$(secret_file_env PWP__MAIL__SMTP_PASSWORD).*$(secret_volume pwpush-secrets)\s*- key: DATABASE_URL\n\s*path: DATABASE_URL\n\s*- key: PWPUSH_MASTER_KEY\n\s*path: PWPUSH_MASTER_KEY\n\s*- key: smtp-password\n\s*path: PWP__MAIL__SMTP_PASSWORD\n(?!\s*- key:)" \
  present "${MAIL[@]}"
expect_in_render "mail + existingSecret: the migration Job gets the password file too (it loads the same settings)" templates/migrations-job.yaml \
  "$(secret_file_env PWP__MAIL__SMTP_PASSWORD)" present "${MAIL[@]}"
expect_in_render "mail + chart Secret: the SMTP password is in the Secret" templates/secret.yaml \
  '(?m)^  PWP__MAIL__SMTP_PASSWORD: "c210cC1zZWNyZXQ="$' present "${MAIL_CHART_SECRET[@]}"
expect_in_render "mail + chart Secret: the migration hook's copy holds it too" templates/migrations-secret.yaml \
  '(?m)^  PWP__MAIL__SMTP_PASSWORD: "c210cC1zZWNyZXQ="$' present "${MAIL_CHART_SECRET[@]}"
expect_in_render "mail without sign-in: no SMTP password file" all \
  'PWP__MAIL__SMTP_PASSWORD' absent "${MIN[@]}" --set mail.smtp.address=smtp.example.com --set-string mail.sender=pwpush@example.com
expect_in_render "egress on, mail on: the SMTP port is open to any address" templates/networkpolicy.yaml \
  '(?m)^    - ports:\n        - port: 2525\n          protocol: TCP$' present "${MAIL[@]}"
expect_in_render "egress on: https to public addresses only, for webhooks" templates/networkpolicy.yaml \
  '(?s)- ipBlock:\n\s*cidr: 0\.0\.0\.0/0\n\s*except:\n(\s*- [0-9./]+\n)*\s*- 10\.0\.0\.0/8\n(\s*- [0-9./]+\n)*\s*- 169\.254\.0\.0/16\n.*cidr: ::/0\n.*- fc00::/7\n.*ports:\n\s*- port: 443\n' present "${MAIL[@]}"
expect_in_render "egress on, smtp and webhooks off: neither rule" templates/networkpolicy.yaml \
  'port: 2525|port: 443' absent "${MAIL[@]}" \
  --set networkPolicy.egress.smtp=false --set networkPolicy.egress.webhooks=false --set-json 'networkPolicy.egress.rules=[]'
expect_in_render "egress on, mail off: no SMTP rule" templates/networkpolicy.yaml \
  'port: 587' absent "${MIN[@]}" --set networkPolicy.enabled=true --set networkPolicy.egress.enabled=true

# Behind the ingress with no other values (docs/operations.md, "Behind a proxy or ingress"): the pod trusts
# the ingress, /metrics is not routed by it, readiness ignores Redis.
INGRESS_ONLY=("${REQUIRED_SETS[@]}" --set ingress.enabled=true)
expect_in_render "ingress on, no other values: TRUST_PROXY holds the cluster's private ranges and loopback" templates/configmap.yaml \
  '(?m)^  TRUST_PROXY: 10\.0\.0\.0/8,172\.16\.0\.0/12,192\.168\.0\.0/16,127\.0\.0\.0/8,fc00::/7,::1$' present "${INGRESS_ONLY[@]}"
expect_in_render "ingress on: /metrics has a container port of its own (METRICS_PORT)" templates/deployment.yaml \
  '- name: metrics\n\s*containerPort: 9464\n(?s).*- name: METRICS_PORT\n(\s*#.*\n)*\s*value: "9464"\n' present "${INGRESS_ONLY[@]}"
expect_in_render "ingress on: the Service exposes it under its own port name" templates/service.yaml \
  '- name: metrics\n\s*port: 9464\n\s*targetPort: metrics\n' present "${INGRESS_ONLY[@]}"
expect_in_render "ingress on: the Ingress routes to the http port only" templates/ingress.yaml \
  '(?m)port:\n\s*(name: (?!http$)|number: )' absent "${INGRESS_ONLY[@]}"
expect_in_render "ServiceMonitor scrapes the metrics port" templates/servicemonitor.yaml \
  '- port: metrics\n\s*path: /metrics\n' present "${INGRESS_ONLY[@]}" --set metrics.serviceMonitor.enabled=true
expect_in_render "network policy: the metrics port is open to the same peers as http" templates/networkpolicy.yaml \
  '- port: http\n\s*protocol: TCP\n\s*- port: metrics\n' present "${INGRESS_ONLY[@]}" --set networkPolicy.enabled=true

# ------------------------------------------------------------ must-fail cases

section "negative cases (each must fail, for the stated reason)"
expect_render_failure() { # description, expected stderr substring, helm template args...
  local description="$1" expected="$2"
  shift 2
  if render "$@" >/dev/null 2>"$WORK/neg.err"; then
    fail "$description: rendered, but should have failed"
  elif grep -qF -- "$expected" "$WORK/neg.err"; then
    pass "$description (helm: $(grep -F -m1 -- "$expected" "$WORK/neg.err" | cut -c1-160))"
  else
    cat "$WORK/neg.err"
    fail "$description: failed, but without \"$expected\""
  fi
}

expect_render_failure "defaults without secrets stop at required" \
  "secrets.databaseUrl is required"
expect_render_failure "database URL without master key stops at required" \
  "secrets.masterKey is required" --set "secrets.databaseUrl=mysql://u:p@db:3306/pwpush"
expect_render_failure "schema: replicaCount must be an integer" \
  "replicaCount: Invalid type. Expected: integer" -f "$CHART/ci/minimal-values.yaml" --set-string replicaCount=three
expect_render_failure "schema: unknown top-level value is rejected" \
  "Additional property replicas is not allowed" -f "$CHART/ci/minimal-values.yaml" --set replicas=3
expect_render_failure "schema: unknown nested value is rejected" \
  "Additional property tagg is not allowed" -f "$CHART/ci/minimal-values.yaml" --set image.tagg=1.0
expect_render_failure "schema: master key must be 64 hex characters" \
  "secrets.masterKey: Does not match pattern" -f "$CHART/ci/minimal-values.yaml" --set secrets.masterKey=not-a-key
expect_render_failure "schema: the database URL must name a supported engine and a database" \
  "secrets.databaseUrl: Does not match pattern" -f "$CHART/ci/minimal-values.yaml" --set-string secrets.databaseUrl=sqlite:/data/pwpush.sqlite3
expect_render_failure "schema: config values must be strings" \
  "config.PWP__ALLOW_ANONYMOUS: Invalid type. Expected: string" -f "$CHART/ci/minimal-values.yaml" --set config.PWP__ALLOW_ANONYMOUS=true
expect_render_failure "secret settings are refused in the ConfigMap" \
  "config.DATABASE_URL is a secret setting" -f "$CHART/ci/minimal-values.yaml" --set-string config.DATABASE_URL=mysql://x
expect_render_failure "files local refuses a second replica" \
  "files.storage=local keeps file attachments on a volume of the single API pod, so replicaCount must be 0 or 1 (it is 2)" \
  -f "$CHART/ci/files-local-values.yaml" --set replicaCount=2
expect_render_failure "files local refuses autoscaling" \
  "files.storage=local keeps file attachments on a volume of the single API pod, so it cannot autoscale" \
  -f "$CHART/ci/minimal-values.yaml" --set autoscaling.enabled=true
expect_render_failure "schema: files s3 needs a bucket" \
  "files.s3.bucket: String length must be greater than or equal to 1" -f "$CHART/ci/minimal-values.yaml" --set files.storage=s3
expect_render_failure "files s3 needs a bucket even without the schema" \
  "files.s3.bucket is required with files.storage=s3" -f "$CHART/ci/minimal-values.yaml" --set files.storage=s3 --skip-schema-validation
expect_render_failure "files s3: one credential without the other" \
  "secrets.s3AccessKeyId and secrets.s3SecretAccessKey go together" -f "$CHART/ci/minimal-values.yaml" \
  --set files.storage=s3 --set files.s3.bucket=pwpush-files --set secrets.s3AccessKeyId=AKIAEXAMPLE
expect_render_failure "schema: files.storage is local or s3" \
  "files.storage: files.storage must be one of the following" -f "$CHART/ci/minimal-values.yaml" --set files.storage=disk
expect_render_failure "schema: file sizes are bytes or KiB/MiB/GiB" \
  "files.maxFileSize: Does not match pattern" -f "$CHART/ci/minimal-values.yaml" --set files.maxFileSize=100MB
expect_render_failure "file settings are refused in config (the files block sets them)" \
  "config.PWP__FILES__STORAGE is set by the chart from files.storage" -f "$CHART/ci/minimal-values.yaml" \
  --set-string config.PWP__FILES__STORAGE=amazon
expect_render_failure "S3 credentials are refused in the ConfigMap" \
  "config.PWP__FILES__S3__SECRET_ACCESS_KEY is a secret setting" -f "$CHART/ci/minimal-values.yaml" \
  --set-string config.PWP__FILES__S3__SECRET_ACCESS_KEY=x
expect_render_failure "metrics port on the HTTP port" \
  "metrics.port must differ from containerPort" -f "$CHART/ci/minimal-values.yaml" --set metrics.port=5100
expect_render_failure "schema: TRUST_PROXY holds addresses and ranges only" \
  "app.trustProxy: Does not match pattern" -f "$CHART/ci/minimal-values.yaml" --set-string app.trustProxy=ingress.internal
expect_render_failure "a secret's _FILE variable is refused in the ConfigMap too" \
  "config.DATABASE_URL_FILE is a secret setting" -f "$CHART/ci/minimal-values.yaml" --set-string config.DATABASE_URL_FILE=/elsewhere
expect_render_failure "existingSecret: one S3 credential key without the other" \
  "secrets.existingSecretKeys.s3AccessKeyId and s3SecretAccessKey go together" -f "$CHART/ci/files-s3-values.yaml" \
  --set secrets.existingSecretKeys.s3SecretAccessKey=
expect_render_failure "schema: an existing Secret's key names are Secret key names" \
  "secrets.existingSecretKeys.redisUrl: Does not match pattern" -f "$CHART/ci/production-values.yaml" \
  --set-string 'secrets.existingSecretKeys.redisUrl=redis url'
expect_render_failure "existingSecret: ServiceMonitor bearer token without the app's METRICS_TOKEN key" \
  "bearerToken.enabled needs secrets.existingSecretKeys.metricsToken" -f "$CHART/ci/production-values.yaml" \
  --set metrics.serviceMonitor.enabled=true --set metrics.serviceMonitor.bearerToken.enabled=true
expect_render_failure "metrics token without ServiceMonitor bearer token" \
  "bearerToken.enabled=true" -f "$CHART/ci/minimal-values.yaml" \
  --set metrics.serviceMonitor.enabled=true --set secrets.metricsToken=t

expect_render_failure "mail: an SMTP address without a sender" \
  "mail.sender is required with mail.smtp.address" -f "$CHART/ci/minimal-values.yaml" --set mail.smtp.address=smtp.example.com
expect_render_failure "mail: a user name without the password (chart Secret)" \
  "mail.smtp.userName and secrets.smtpPassword go together" -f "$CHART/ci/minimal-values.yaml" \
  --set mail.smtp.address=smtp.example.com --set-string mail.sender=pwpush@example.com --set mail.smtp.userName=apikey
expect_render_failure "mail: a user name without the password's key (existing Secret)" \
  "mail.smtp.userName and secrets.existingSecretKeys.smtpPassword go together" -f "$CHART/ci/mail-values.yaml" \
  --set secrets.existingSecretKeys.smtpPassword=
expect_render_failure "schema: the SMTP authentication is plain, login or cram_md5" \
  "mail.smtp.authentication: mail.smtp.authentication must be one of the following" -f "$CHART/ci/mail-values.yaml" \
  --set mail.smtp.authentication=xoauth2
expect_render_failure "schema: the SMTP address is a host, not a URL" \
  "mail.smtp.address: Does not match pattern" -f "$CHART/ci/minimal-values.yaml" --set-string mail.smtp.address=smtp://smtp.example.com
expect_render_failure "schema: retries last from a minute to a week, as the app accepts" \
  "notifications.retryForSeconds: Must be less than or equal to 604800" -f "$CHART/ci/minimal-values.yaml" \
  --set notifications.retryForSeconds=700000
expect_render_failure "mail settings are refused in config (the mail block sets them)" \
  "config.PWP__MAIL__SMTP_ADDRESS is set by the chart from mail.smtp.address" -f "$CHART/ci/minimal-values.yaml" \
  --set-string config.PWP__MAIL__SMTP_ADDRESS=smtp.example.com
expect_render_failure "the SMTP password is refused in the ConfigMap" \
  "config.PWP__MAIL__SMTP_PASSWORD is a secret setting" -f "$CHART/ci/minimal-values.yaml" \
  --set-string config.PWP__MAIL__SMTP_PASSWORD=x

# A chart that renders but produces an invalid manifest must be caught by the
# validator: a misspelt securityContext field passes the values schema (the
# value is a free-form Kubernetes object) and helm, and Kubernetes would drop it.
if render -f "$CHART/ci/minimal-values.yaml" --set securityContext.readOnlyRootFileSystem=true >"$WORK/bogus.yaml" 2>&1 &&
  ! "${VALIDATE[@]}" --label bogus-field "$WORK/bogus.yaml" >"$WORK/bogus.log" 2>&1; then
  if grep -q "unknown field .*securityContext/readOnlyRootFileSystem" "$WORK/bogus.log"; then
    pass "validator rejects a rendered manifest with an unknown field"
  else
    cat "$WORK/bogus.log"
    fail "validator failed the bogus-field render, but not for the unknown field"
  fi
else
  cat "$WORK/bogus.log" 2>/dev/null || true
  fail "validator accepted a rendered manifest with an unknown field"
fi

# Same for a policy breach the schema allows: a writable root filesystem.
if render -f "$CHART/ci/minimal-values.yaml" --set securityContext.readOnlyRootFilesystem=false >"$WORK/rw.yaml" 2>&1 &&
  ! "${VALIDATE[@]}" --label writable-root "$WORK/rw.yaml" >"$WORK/rw.log" 2>&1 &&
  grep -q "readOnlyRootFilesystem must be true" "$WORK/rw.log"; then
  pass "validator rejects a writable root filesystem"
else
  cat "$WORK/rw.log" 2>/dev/null || true
  fail "validator accepted a writable root filesystem"
fi

# helm lint --strict must fail on values that break the schema as well.
printf 'replicaCount: three\n' >"$WORK/bad-values.yaml"
if "$HELM" lint --strict "$CHART" --kube-version "$KUBE_VERSION" -f "$CHART/ci/minimal-values.yaml" \
  -f "$WORK/bad-values.yaml" >"$WORK/lint-bad.log" 2>&1; then
  fail "helm lint --strict accepted replicaCount: three"
elif grep -q "replicaCount: Invalid type" "$WORK/lint-bad.log"; then
  pass "helm lint --strict rejects replicaCount: three"
else
  cat "$WORK/lint-bad.log"
  fail "helm lint --strict failed on replicaCount: three, but not for its type"
fi

# ------------------------------------------------ the rendered chart, running

# The built server run with the Deployment's environment, requests sent where the manifests route
# them (scripts/check-chart-ingress.mjs): with the ingress on and no other values, and again with
# the ServiceMonitor on. Builds dist/ when it is missing (npm test builds it in CI).
section "ingress on, no other values: the server as the chart configures it"
[[ -f dist/apps/api/src/main.js && -f dist/apps/cli/src/main.js ]] || npm run --silent build >/dev/null
for extra in "" "metrics.serviceMonitor.enabled=true"; do
  label="ingress on${extra:+, $extra}"
  if ! render "${INGRESS_ONLY[@]}" ${extra:+--set "$extra"} >"$WORK/ingress.yaml" 2>"$WORK/render.err"; then
    cat "$WORK/render.err"
    fail "$label: render"
  elif node scripts/check-chart-ingress.mjs "$WORK/ingress.yaml"; then
    pass "$label: the pod trusts the ingress, /metrics is not routed, readiness ignores Redis"
  else
    fail "$label: the pod trusts the ingress, /metrics is not routed, readiness ignores Redis"
  fi
done

# ------------------------------------------------------------------- docs

section "README documents every value"
if node scripts/check-chart-docs.mjs "$CHART"; then
  pass "README value table matches values.schema.json and values.yaml"
else
  fail "README value table out of date"
fi

echo
echo "check-chart: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
