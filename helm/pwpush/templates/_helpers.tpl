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
{{- with .Values.secrets.oidcClientSecret }}
PWP__OIDC__CLIENT_SECRET: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.secrets.oidcPrivateKey }}
PWP__OIDC__PRIVATE_KEY: {{ . | b64enc | quote }}
{{- end }}
{{- if eq (include "pwpush.filesStorage" .) "s3" }}
{{- with .Values.secrets.s3AccessKeyId }}
PWP__FILES__S3__ACCESS_KEY_ID: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.secrets.s3SecretAccessKey }}
PWP__FILES__S3__SECRET_ACCESS_KEY: {{ . | b64enc | quote }}
{{- end }}
{{- end }}
{{- if .Values.mail.smtp.address }}
{{- with .Values.secrets.smtpPassword }}
PWP__MAIL__SMTP_PASSWORD: {{ . | b64enc | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Secret settings reach the app as files, never as environment values (which
`kubectl describe`, /proc/<pid>/environ and child processes can show): the
Secret's keys are mounted at "pwpush.secretsDir", one file per setting named
after its variable, and the env names each file with <NAME>_FILE.
"pwpush.secretKeys" maps each variable to its key in the Secret, for the keys it
holds: the chart's Secret holds the values given; an existing Secret holds the
two required keys and each optional key named in secrets.existingSecretKeys.
*/}}
{{- define "pwpush.secretsDir" -}}
/run/secrets/pwpush
{{- end }}

{{- define "pwpush.secretKeys" -}}
{{- $v := .Values.secrets }}
{{- $fields := dict "DATABASE_URL" "databaseUrl" "PWPUSH_MASTER_KEY" "masterKey" "PWPUSH_MASTER_KEY_PREVIOUS" "masterKeyPrevious" "REDIS_URL" "redisUrl" "METRICS_TOKEN" "metricsToken" "PWP__OIDC__CLIENT_SECRET" "oidcClientSecret" "PWP__OIDC__PRIVATE_KEY" "oidcPrivateKey" }}
{{- if eq (include "pwpush.filesStorage" .) "s3" }}
{{- $_ := set $fields "PWP__FILES__S3__ACCESS_KEY_ID" "s3AccessKeyId" }}
{{- $_ := set $fields "PWP__FILES__S3__SECRET_ACCESS_KEY" "s3SecretAccessKey" }}
{{- end }}
{{- if .Values.mail.smtp.address }}
{{- $_ := set $fields "PWP__MAIL__SMTP_PASSWORD" "smtpPassword" }}
{{- end }}
{{- $keys := dict }}
{{- range $env, $field := $fields }}
{{- if $v.existingSecret }}
{{- with get $v.existingSecretKeys $field }}{{ $_ := set $keys $env . }}{{ end }}
{{- else if get $v $field }}
{{- $_ := set $keys $env $env }}
{{- end }}
{{- end }}
{{- toYaml $keys }}
{{- end }}

{{/* env entries: <NAME>_FILE for each secret setting the Secret holds. */}}
{{- define "pwpush.secretEnv" -}}
{{- range $env, $_ := include "pwpush.secretKeys" . | fromYaml }}
- name: {{ $env }}_FILE
  value: {{ include "pwpush.secretsDir" $ }}/{{ $env }}
{{- end }}
{{- end }}

{{/* The Secret as a volume of those files. Call with (dict "ctx" $ "secretName" "..."). */}}
{{- define "pwpush.secretVolume" -}}
- name: secrets
  secret:
    secretName: {{ .secretName }}
    # 0440: the files belong to the pod's group (podSecurityContext.fsGroup).
    defaultMode: 288
    items:
      {{- range $env, $key := include "pwpush.secretKeys" .ctx | fromYaml }}
      - key: {{ $key }}
        path: {{ $env }}
      {{- end }}
{{- end }}

{{- define "pwpush.secretVolumeMount" -}}
- name: secrets
  mountPath: {{ include "pwpush.secretsDir" . }}
  readOnly: true
{{- end }}

{{/*
Non-secret settings: typed values first, then the free-form `config` map, which
wins on conflicts. Rendered as ConfigMap data for the Deployment, and as inline env
for the migration hook Job (the ConfigMap does not exist yet when a pre-install
hook runs).
*/}}
{{- define "pwpush.configData" -}}
{{- $secretKeys := list "DATABASE_URL" "PWPUSH_MASTER_KEY" "PWPUSH_MASTER_KEY_PREVIOUS" "REDIS_URL" "METRICS_TOKEN" "PWP__FILES__S3__ACCESS_KEY_ID" "PWP__FILES__S3__SECRET_ACCESS_KEY" "PWP__MAIL__SMTP_PASSWORD" "PWP__OIDC__CLIENT_SECRET" "PWP__OIDC__PRIVATE_KEY" }}
{{- $chartKeys := merge (include "pwpush.fileSettings" . | fromYaml) (include "pwpush.notificationSettings" . | fromYaml) }}
{{- range $k, $_ := .Values.config }}
{{- if has (trimSuffix "_FILE" $k) $secretKeys }}
{{- fail (printf "config.%s is a secret setting: set it under secrets (or in secrets.existingSecret), not in the ConfigMap" $k) }}
{{- end }}
{{- if hasKey $chartKeys $k }}
{{- fail (printf "config.%s is set by the chart from %s: set that value instead" $k (get $chartKeys $k)) }}
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
{{- $data = merge $data (include "pwpush.filesEnv" . | fromYaml) }}
{{- $data = merge $data (include "pwpush.notificationsEnv" . | fromYaml) }}
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


{{/*
File attachments. "pwpush.filesStorage" is "local", "s3", or "" when file pushes
are off; local files live under DATA_DIR/files on the "data" volume.
*/}}
{{- define "pwpush.filesStorage" -}}
{{- if .Values.files.enabled }}{{ .Values.files.storage }}{{ end }}
{{- end }}

{{- define "pwpush.dataDir" -}}
/var/lib/pwpush
{{- end }}

{{- define "pwpush.filesClaimName" -}}
{{- default (printf "%s-files" (include "pwpush.fullname" . | trunc 57 | trimSuffix "-")) .Values.files.persistence.existingClaim }}
{{- end }}

{{/* Environment variable -> the value that sets it; config may not set these. */}}
{{- define "pwpush.fileSettings" -}}
PWP__ENABLE_FILE_PUSHES: files.enabled
PWP__FILES__STORAGE: files.storage
DATA_DIR: files.persistence (the volume is mounted at {{ include "pwpush.dataDir" . }})
PWP__FILES__MAX_FILE_UPLOADS: files.maxFileUploads
PWP__FILES__MAX_FILE_SIZE: files.maxFileSize
PWP__FILES__MAX_PUSH_SIZE: files.maxPushSize
PWP__FILES__MAX_JSON_BODY_SIZE: files.maxJsonBodySize
PWP__FILES__LINK_LIFETIME_SECONDS: files.linkLifetimeSeconds
PWP__FILES__S3__BUCKET: files.s3.bucket
PWP__FILES__S3__REGION: files.s3.region
PWP__FILES__S3__ENDPOINT: files.s3.endpoint
PWP__FILES__S3__FORCE_PATH_STYLE: files.s3.forcePathStyle
PWP__FILES__S3__PREFIX: files.s3.prefix
{{- end }}

{{/* Non-secret file settings (merged into pwpush.configData). Limits left null keep the app defaults. */}}
{{- define "pwpush.filesEnv" -}}
{{- $f := .Values.files }}
{{- $env := dict "PWP__ENABLE_FILE_PUSHES" (toString $f.enabled) }}
{{- $storage := include "pwpush.filesStorage" . }}
{{- if eq $storage "local" }}
{{- $_ := set $env "PWP__FILES__STORAGE" "local" }}
{{- $_ := set $env "DATA_DIR" (include "pwpush.dataDir" .) }}
{{- else if eq $storage "s3" }}
{{- $_ := set $env "PWP__FILES__STORAGE" "amazon" }}
{{- $_ := set $env "PWP__FILES__S3__BUCKET" $f.s3.bucket }}
{{- $_ := set $env "PWP__FILES__S3__REGION" $f.s3.region }}
{{- $_ := set $env "PWP__FILES__S3__FORCE_PATH_STYLE" (toString $f.s3.forcePathStyle) }}
{{- with $f.s3.endpoint }}{{ $_ := set $env "PWP__FILES__S3__ENDPOINT" . }}{{ end }}
{{- with $f.s3.prefix }}{{ $_ := set $env "PWP__FILES__S3__PREFIX" . }}{{ end }}
{{- end }}
{{- range $name, $value := dict
  "PWP__FILES__MAX_FILE_UPLOADS" $f.maxFileUploads
  "PWP__FILES__MAX_FILE_SIZE" $f.maxFileSize
  "PWP__FILES__MAX_PUSH_SIZE" $f.maxPushSize
  "PWP__FILES__MAX_JSON_BODY_SIZE" $f.maxJsonBodySize
  "PWP__FILES__LINK_LIFETIME_SECONDS" $f.linkLifetimeSeconds
}}
{{- if not (kindIs "invalid" $value) }}
{{- /* Numbers from a values file arrive as float64: int64 keeps 104857600 from becoming 1.048576e+08. */}}
{{- $_ := set $env $name (ternary $value (toString (int64 $value)) (kindIs "string" $value)) }}
{{- end }}
{{- end }}
{{- toYaml $env }}
{{- end }}

{{/*
Local file storage is one pod's volume: more than one replica (or an HPA) would
spread the files over pods that cannot see each other's. S3 has no such limit.
*/}}
{{- define "pwpush.validateFiles" -}}
{{- $storage := include "pwpush.filesStorage" . }}
{{- $local := "files.storage=local keeps file attachments on a volume of the single API pod" }}
{{- $fix := "use files.storage=s3 (S3-compatible object storage) to run several replicas, or files.enabled=false" }}
{{- if eq $storage "local" }}
{{- if .Values.autoscaling.enabled }}
{{- fail (printf "%s, so it cannot autoscale: autoscaling.enabled must be false; %s" $local $fix) }}
{{- end }}
{{- if gt (int .Values.replicaCount) 1 }}
{{- fail (printf "%s, so replicaCount must be 0 or 1 (it is %d); %s" $local (int .Values.replicaCount) $fix) }}
{{- end }}
{{- else if eq $storage "s3" }}
{{- $_ := required "files.s3.bucket is required with files.storage=s3" .Values.files.s3.bucket }}
{{- if and (not .Values.secrets.existingSecret) (ne (empty .Values.secrets.s3AccessKeyId) (empty .Values.secrets.s3SecretAccessKey)) }}
{{- fail "secrets.s3AccessKeyId and secrets.s3SecretAccessKey go together: set both, or neither to use the AWS SDK default credential chain (e.g. IRSA via serviceAccount.annotations)" }}
{{- end }}
{{- $keys := .Values.secrets.existingSecretKeys }}
{{- if and .Values.secrets.existingSecret (ne (empty $keys.s3AccessKeyId) (empty $keys.s3SecretAccessKey)) }}
{{- fail "secrets.existingSecretKeys.s3AccessKeyId and s3SecretAccessKey go together: name both keys, or neither to use the AWS SDK default credential chain (e.g. IRSA via serviceAccount.annotations)" }}
{{- end }}
{{- end }}
{{- end }}


{{/*
Notifications: mail (SMTP, the sender, the recipients' mails), webhooks and their retries.
"pwpush.notificationSettings" maps each variable the chart sets to the value that sets it;
config may not set these. The SMTP settings are rendered only with mail.smtp.address: without
it no mail is sent, and the rest would only confuse.
*/}}
{{- define "pwpush.notificationSettings" -}}
PWP__MAIL__SMTP_ADDRESS: mail.smtp.address
PWP__MAIL__SMTP_PORT: mail.smtp.port
PWP__MAIL__SMTP_USER_NAME: mail.smtp.userName
PWP__MAIL__SMTP_AUTHENTICATION: mail.smtp.authentication
PWP__MAIL__SMTP_STARTTLS: mail.smtp.starttls
PWP__MAIL__MAILER_SENDER: mail.sender
PWP__NOTIFY_BY_EMAIL__ENABLED: notifyByEmail.enabled
PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: notifyByEmail.dailyLimit
PWP__WEBHOOKS__ALLOW_HTTP: webhooks.allowHttp
PWP__WEBHOOKS__ALLOWED_HOSTS: webhooks.allowedHosts
PWP__NOTIFICATIONS__RETRY_FOR_SECONDS: notifications.retryForSeconds
{{- end }}

{{/* Non-secret notification settings (merged into pwpush.configData). Numbers via int64, never e-notation. */}}
{{- define "pwpush.notificationsEnv" -}}
{{- $v := .Values }}
{{- $env := dict
  "PWP__NOTIFY_BY_EMAIL__ENABLED" (toString $v.notifyByEmail.enabled)
  "PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT" (toString (int64 $v.notifyByEmail.dailyLimit))
  "PWP__WEBHOOKS__ALLOW_HTTP" (toString $v.webhooks.allowHttp)
  "PWP__NOTIFICATIONS__RETRY_FOR_SECONDS" (toString (int64 $v.notifications.retryForSeconds))
}}
{{- with $v.webhooks.allowedHosts }}{{ $_ := set $env "PWP__WEBHOOKS__ALLOWED_HOSTS" (join "," .) }}{{ end }}
{{- $smtp := $v.mail.smtp }}
{{- if $smtp.address }}
{{- $_ := set $env "PWP__MAIL__SMTP_ADDRESS" $smtp.address }}
{{- $_ := set $env "PWP__MAIL__SMTP_PORT" (toString (int64 $smtp.port)) }}
{{- $_ := set $env "PWP__MAIL__SMTP_STARTTLS" (toString $smtp.starttls) }}
{{- $_ := set $env "PWP__MAIL__MAILER_SENDER" $v.mail.sender }}
{{- with $smtp.userName }}{{ $_ := set $env "PWP__MAIL__SMTP_USER_NAME" . }}{{ end }}
{{- with $smtp.authentication }}{{ $_ := set $env "PWP__MAIL__SMTP_AUTHENTICATION" . }}{{ end }}
{{- end }}
{{- toYaml $env }}
{{- end }}

{{/*
The app refuses to start on these too; failing the render says so before anything is deployed.
A user name goes with a password: the chart's secrets.smtpPassword, or the key named in
secrets.existingSecretKeys.smtpPassword.
*/}}
{{- define "pwpush.validateMail" -}}
{{- $smtp := .Values.mail.smtp }}
{{- if $smtp.address }}
{{- $_ := required "mail.sender is required with mail.smtp.address (the From of every mail, e.g. '\"Password Pusher\" <pwpush@example.com>')" .Values.mail.sender }}
{{- $secrets := .Values.secrets }}
{{- if $secrets.existingSecret }}
{{- if ne (empty $smtp.userName) (empty $secrets.existingSecretKeys.smtpPassword) }}
{{- fail "mail.smtp.userName and secrets.existingSecretKeys.smtpPassword go together: name the Secret's key holding the SMTP password with the user name, or neither for a server without sign-in" }}
{{- end }}
{{- else if ne (empty $smtp.userName) (empty $secrets.smtpPassword) }}
{{- fail "mail.smtp.userName and secrets.smtpPassword go together: set both, or neither for a server without sign-in" }}
{{- end }}
{{- end }}
{{- end }}
