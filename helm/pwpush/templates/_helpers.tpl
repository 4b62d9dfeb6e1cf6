{{/*
Names. Kubernetes names are limited to 63 characters (DNS label), hence the trunc.
*/}}
{{- define "pwpush.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "pwpush.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of the migration hook resources; the suffix is kept within 63 characters. */}}
{{- define "pwpush.migrationsName" -}}
{{- printf "%s-migrations" (include "pwpush.fullname" . | trunc 52 | trimSuffix "-") }}
{{- end }}

{{- define "pwpush.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels. The component label keeps the Service, PDB and Deployment selectors from
matching the migration Job's and test pods (same name/instance labels).
Call with (dict "ctx" $ "component" "server").
*/}}
{{- define "pwpush.selectorLabels" -}}
app.kubernetes.io/name: {{ include "pwpush.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "pwpush.labels" -}}
helm.sh/chart: {{ include "pwpush.chart" .ctx }}
{{ include "pwpush.selectorLabels" . }}
app.kubernetes.io/version: {{ include "pwpush.imageTag" .ctx | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/part-of: pwpush
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
{{- with .ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "pwpush.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "pwpush.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "pwpush.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag }}
{{- end }}

{{/* The image reference; a digest pins the exact build and wins over the tag. */}}
{{- define "pwpush.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (include "pwpush.imageTag" .) }}
{{- end }}
{{- end }}

{{/*
Secrets. The chart never invents a master key or database URL: without
existingSecret both must be given, or rendering stops here with a clear message.
*/}}
{{- define "pwpush.secretName" -}}
{{- if .Values.secrets.existingSecret }}
{{- .Values.secrets.existingSecret }}
{{- else }}
{{- include "pwpush.fullname" . }}
{{- end }}
{{- end }}

{{- define "pwpush.validateSecrets" -}}
{{- if not .Values.secrets.existingSecret }}
{{- $_ := required "secrets.databaseUrl is required (e.g. mysql://user:pass@host:3306/pwpush), or set secrets.existingSecret to a Secret holding DATABASE_URL" .Values.secrets.databaseUrl }}
{{- $_ := required "secrets.masterKey is required (64 hex characters, e.g. `openssl rand -hex 32`), or set secrets.existingSecret to a Secret holding PWPUSH_MASTER_KEY; the chart never generates it because losing it makes stored pushes unreadable" .Values.secrets.masterKey }}
{{- end }}
{{- end }}

{{/* data: of the chart-managed Secret (also copied into the migration hook Secret). */}}
{{- define "pwpush.secretData" -}}
DATABASE_URL: {{ .Values.secrets.databaseUrl | b64enc | quote }}
PWPUSH_MASTER_KEY: {{ .Values.secrets.masterKey | b64enc | quote }}
{{- with .Values.secrets.masterKeyPrevious }}
PWPUSH_MASTER_KEY_PREVIOUS: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.secrets.redisUrl }}
REDIS_URL: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.secrets.metricsToken }}
METRICS_TOKEN: {{ . | b64enc | quote }}
{{- end }}
{{- end }}

{{/*
env entries for the secret settings, read from Secret .secretName.
With existingSecret the optional keys are referenced with optional: true, so they
are picked up when present; with the chart Secret only the keys it holds are listed.
Call with (dict "ctx" $ "secretName" "...").
*/}}
{{- define "pwpush.secretEnv" -}}
{{- $v := .ctx.Values.secrets }}
{{- $existing := ne $v.existingSecret "" }}
{{- $keys := $v.existingSecretKeys }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ ternary $keys.databaseUrl "DATABASE_URL" $existing }}
- name: PWPUSH_MASTER_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ ternary $keys.masterKey "PWPUSH_MASTER_KEY" $existing }}
{{- range $env, $field := dict "PWPUSH_MASTER_KEY_PREVIOUS" "masterKeyPrevious" "REDIS_URL" "redisUrl" "METRICS_TOKEN" "metricsToken" }}
{{- if $existing }}
- name: {{ $env }}
  valueFrom:
    secretKeyRef:
      name: {{ $.secretName }}
      key: {{ get $keys $field }}
      optional: true
{{- else if get $v $field }}
- name: {{ $env }}
  valueFrom:
    secretKeyRef:
      name: {{ $.secretName }}
      key: {{ $env }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Non-secret settings: typed values first, then the free-form `config` map, which
wins on conflicts. Rendered as ConfigMap data for the Deployment, and as inline env
for the migration hook Job (the ConfigMap does not exist yet when a pre-install
hook runs).
*/}}
{{- define "pwpush.configData" -}}
{{- $secretKeys := list "DATABASE_URL" "PWPUSH_MASTER_KEY" "PWPUSH_MASTER_KEY_PREVIOUS" "REDIS_URL" "METRICS_TOKEN" }}
{{- range $k, $_ := .Values.config }}
{{- if has $k $secretKeys }}
{{- fail (printf "config.%s is a secret setting: set it under secrets (or in secrets.existingSecret), not in the ConfigMap" $k) }}
{{- end }}
{{- end }}
{{- $data := dict
  "NODE_ENV" .Values.app.nodeEnv
  "LOG_LEVEL" .Values.app.logLevel
  "SHUTDOWN_TIMEOUT_MS" (toString .Values.app.shutdownTimeoutMs)
  "EXPIRY_SWEEP_ENABLED" (toString .Values.app.expirySweep.enabled)
  "EXPIRY_SWEEP_INTERVAL_SECONDS" (toString .Values.app.expirySweep.intervalSeconds)
}}
{{- with .Values.app.trustProxy }}{{ $_ := set $data "TRUST_PROXY" . }}{{ end }}
{{- with .Values.app.corsOrigins }}{{ $_ := set $data "CORS_ORIGINS" . }}{{ end }}
{{- $data = merge (deepCopy .Values.config) $data }}
{{- toYaml $data }}
{{- end }}

{{/* Container security context shared by the server, migration and test containers. */}}
{{- define "pwpush.containerSecurityContext" -}}
{{- toYaml .Values.securityContext }}
{{- end }}

{{/* Pod-level settings shared by the server, migration and test pods. */}}
{{- define "pwpush.podCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
# The app never calls the Kubernetes API: no token in the pod.
automountServiceAccountToken: false
# Service links would inject <SERVICE>_PORT=tcp://... variables, which can clash
# with the app's own settings (e.g. a Service named "pwpush" yields PWPUSH_*).
enableServiceLinks: false
{{- end }}

{{/* Writable scratch space; everything else is read-only. */}}
{{- define "pwpush.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end }}
