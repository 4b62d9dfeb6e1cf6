#!/usr/bin/env bash
# Checks the production image's runtime layout without a Docker engine.
#
# The Dockerfile's `runtime` stage holds production node_modules, dist/ and
# package.json under /app, owned by root and read-only for the app's non-root
# user, which may write only to /tmp, with NODE_ENV=production. This script
# reads that shape from the Dockerfile (and the CLI command from the Helm
# migration Job), refusing to go on if it no longer matches what is reproduced
# here, then rebuilds the layout in a temp dir (`npm ci --omit=dev` + dist/) and,
# as `nobody` on a clean environment, runs what a deployment runs:
# the migration Job's CLI command, the server (DB_MIGRATE_ON_START=false as in
# the chart), the HEALTHCHECK command, a create/retrieve, /readyz, version,
# a CLI-created user's token, SIGTERM; then checks that nothing was written in
# the app directory, that production refuses to start without a master key, and
# that without DATABASE_URL (SQLite under the read-only app directory) it stops
# with one line naming DATA_DIR and DATABASE_URL.
# SQLite always; also a fresh MariaDB database when E2E_MYSQL_URL is set, and a
# fresh PostgreSQL database when E2E_PG_URL is set.
#
# Run from the repo root after `npm run build`, as root (to switch to nobody):
#   bash scripts/check-image-layout.sh
# Leaves the repo's node_modules and dist alone; exits non-zero on any failure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="$PWD"
DOCKERFILE="$REPO/Dockerfile"
MIGRATION_JOB="$REPO/helm/pwpush/templates/migrations-job.yaml"
# The runtime image's files must be readable by its user whatever umask CI has.
umask 022

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
section() { printf '\n== %s\n' "$*"; }
die() { echo "check-image-layout: $*" >&2; exit 1; }

[[ $(id -u) == 0 ]] || die "run as root: the app is run as nobody (setpriv) on a root-owned layout, as in the image"
command -v setpriv >/dev/null || die "setpriv (util-linux) is needed"
command -v curl >/dev/null || die "curl is needed"
[[ -f dist/apps/api/src/main.js ]] || die "dist/ is missing or incomplete: run npm run build first"
[[ -z ${E2E_MYSQL_URL:-} || -d node_modules/mysql2 ]] || die "node_modules lacks mysql2 (creates the MariaDB test database): run npm ci first"
[[ -z ${E2E_PG_URL:-} || -d node_modules/pg ]] || die "node_modules lacks pg (creates the PostgreSQL test database): run npm ci first"

APP_UID=$(id -u nobody)
APP_GID=$(id -g nobody)
WORK=$(mktemp -d /tmp/check-image-layout.XXXXXX)
# mktemp makes it 0700; the layout inside must be reachable by nobody.
chmod 755 "$WORK"
APP="$WORK/app"
SERVER_PID=""
MYSQL_DB=""
PG_DB=""
RUNTMPS=()

# ---------------------------------------------------------------- cleanup

mysql_admin() { # <sql>: runs one statement on E2E_MYSQL_URL's server with the repo's mysql2
  node -e '
    const { createConnection } = require("mysql2/promise");
    const u = new URL(process.env.E2E_MYSQL_URL);
    (async () => {
      const c = await createConnection({ uri: `${u.protocol}//${u.username}:${u.password}@${u.host}/` });
      try { await c.query(process.argv[1]); } finally { await c.end(); }
    })().catch((e) => { console.error(e.message); process.exit(1); });
  ' "$1"
}

pg_admin() { # <sql>: runs one statement on E2E_PG_URL's server (its postgres database) with the repo's pg
  node -e '
    const { Client } = require("pg");
    const u = new URL(process.env.E2E_PG_URL);
    u.pathname = "/postgres";
    (async () => {
      const c = new Client({ connectionString: u.toString() });
      await c.connect();
      try { await c.query(process.argv[1]); } finally { await c.end(); }
    })().catch((e) => { console.error(e.message); process.exit(1); });
  ' "$1"
}

cleanup() {
  local status=$?
  # Only the server this script started, by PID.
  if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [[ -n $MYSQL_DB ]]; then
    mysql_admin "DROP DATABASE IF EXISTS \`$MYSQL_DB\`" || echo "warning: could not drop MariaDB database $MYSQL_DB" >&2
  fi
  if [[ -n $PG_DB ]]; then
    pg_admin "DROP DATABASE IF EXISTS \"$PG_DB\" WITH (FORCE)" || echo "warning: could not drop PostgreSQL database $PG_DB" >&2
  fi
  chmod -R u+w "$WORK" 2>/dev/null || true
  rm -rf "$WORK" "${RUNTMPS[@]}"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- the Dockerfile's shape

section "Dockerfile: what the runtime stage holds and runs"

# One fact per line (key<TAB>value); the HEALTHCHECK argv goes NUL-separated to
# a file. Exits non-zero with the reasons when the Dockerfile or the Job no
# longer has the shape this script reproduces.
SHAPE=$(node - "$DOCKERFILE" "$MIGRATION_JOB" "$WORK/healthcheck.argv" <<'JS'
const fs = require('fs');
const [dockerfile, jobFile, healthcheckOut] = process.argv.slice(2);
const problems = [];
const need = (ok, message) => { if (!ok) problems.push(message); return ok; };

// Instructions: comments dropped, backslash continuations joined.
const instructions = [];
let current = '';
for (const raw of fs.readFileSync(dockerfile, 'utf8').split('\n')) {
  if (/^\s*#/.test(raw)) continue;
  const line = raw.replace(/\s+$/, '');
  if (line.endsWith('\\')) { current += line.slice(0, -1) + ' '; continue; }
  current += line;
  if (current.trim()) {
    const m = /^\s*(\S+)\s*(.*)$/.exec(current);
    instructions.push({ op: m[1].toUpperCase(), args: m[2].trim() });
  }
  current = '';
}

const stages = [];
for (const ins of instructions) {
  if (ins.op === 'FROM') {
    const m = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
    stages.push({ base: m ? m[1] : '', name: m && m[2] ? m[2] : String(stages.length), body: [] });
  } else if (stages.length) {
    stages[stages.length - 1].body.push(ins);
  }
}
const stage = (name) => stages.find((s) => s.name === name);
const runs = (s) => s.body.filter((i) => i.op === 'RUN').map((i) => i.args).join('\n');
/** A stage and the stages it is built FROM, nearest first. */
const chain = (s) => { const out = []; while (s && !out.includes(s)) { out.push(s); s = stage(s.base); } return out; };
const jsonArgv = (text, what) => {
  try { const v = JSON.parse(text); if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v; } catch {}
  problems.push(`${what} is not in exec (JSON array) form: ${text}`);
  return null;
};

const runtime = stages[stages.length - 1];
need(runtime && runtime.name === 'runtime', `the last stage (the image) should be named runtime, got ${runtime && runtime.name}`);
const body = runtime ? runtime.body : [];
const only = (op) => body.filter((i) => i.op === op);

need(only('WORKDIR').map((i) => i.args).join() === '/app', 'runtime WORKDIR should be /app');
need(only('ADD').length === 0 && only('VOLUME').length === 0, 'runtime stage has ADD or VOLUME, which this check does not reproduce');
need(only('ENTRYPOINT').length === 0, 'runtime stage has an ENTRYPOINT: CMD would be its arguments, not what this check runs');
const user = only('USER').map((i) => i.args).pop() || '';
need(user !== '' && !/^(0|root)(:|$)/.test(user), `runtime USER should be non-root, got "${user}"`);

const env = {};
for (const i of only('ENV')) for (const m of i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]] = m[2].replace(/^"|"$/g, '');
need(env.NODE_ENV === 'production', 'runtime ENV should set NODE_ENV=production');

// What the runtime stage copies, and from where: exactly what is rebuilt here.
const copies = only('COPY').map((i) => {
  const from = /--from=(\S+)/.exec(i.args);
  const paths = i.args.replace(/--\S+/g, '').trim().split(/\s+/);
  return { from: from ? from[1] : '', srcs: paths.slice(0, -1), dest: paths[paths.length - 1] };
});
const norm = (dest) => dest.replace(/^\.\//, '').replace(/\/$/, '') || '.';
const copy = (dest) => copies.find((c) => norm(c.dest) === dest);
const shape = copies.map((c) => `${c.from || 'context'}:${c.srcs.join(',')}->${c.dest}`).sort().join(' ');
need(copies.length === 3 && copy('node_modules') && copy('dist') && copy('.') && copy('.').srcs.join() === 'package.json',
  `runtime should copy exactly node_modules, dist and package.json; copies: ${shape}`);
const depsStage = copy('node_modules') && stage(copy('node_modules').from);
if (need(depsStage, 'runtime node_modules should come from a stage')) {
  need(/npm ci\b[^\n&;|]*--omit=dev/.test(runs(depsStage)), `stage ${depsStage.name} should run npm ci --omit=dev`);
  // Everything its install sees: only the manifests (more would change what npm ci does).
  const inputs = chain(depsStage).flatMap((s) => s.body.filter((i) => i.op === 'COPY' || i.op === 'ADD'));
  const srcs = inputs.flatMap((i) => i.args.replace(/--\S+/g, '').trim().split(/\s+/).slice(0, -1));
  need(inputs.every((i) => i.op === 'COPY' && !/--from=/.test(i.args)) && srcs.every((s) => ['package.json', 'package-lock.json', '.npmrc*'].includes(s)),
    `the production install should see only package.json, package-lock.json, .npmrc*; it sees: ${srcs.join(' ')}`);
}
const buildStage = copy('dist') && stage(copy('dist').from);
if (need(buildStage, 'runtime dist should come from a stage')) need(/npm run build/.test(runs(buildStage)), `stage ${buildStage.name} should run npm run build`);

const cmd = only('CMD').map((i) => jsonArgv(i.args, 'CMD')).pop();
need(cmd && cmd.length === 2 && cmd[0] === 'node' && /^dist\/.+\.js$/.test(cmd[1]), `CMD should be ["node", "dist/....js"], got ${JSON.stringify(cmd)}`);

const hc = only('HEALTHCHECK').pop();
let hcArgv = null;
let hcTimeout = 30;
if (need(hc, 'runtime stage has no HEALTHCHECK')) {
  const m = /^((?:--\S+\s+)*)CMD\s+(.*)$/.exec(hc.args);
  if (need(m, `HEALTHCHECK should be [options] CMD [...]: ${hc.args}`)) {
    hcArgv = jsonArgv(m[2], 'HEALTHCHECK CMD');
    need(hcArgv && hcArgv[0] === 'node', 'HEALTHCHECK should run node (the image has no curl)');
    const t = /--timeout=(\d+)s\b/.exec(m[1]);
    if (t) hcTimeout = Number(t[1]);
  }
}

// The Helm migration Job runs the CLI from the same image; the build stage asserts it exists.
const jobCommand = /^\s*command:\s*(\[.*\])\s*$/m.exec(fs.readFileSync(jobFile, 'utf8'));
const job = jobCommand && jsonArgv(jobCommand[1], 'migration Job command');
const cli = job && job.length === 3 && job[0] === 'node' && job[2] === 'migrations:run' ? job[1] : null;
need(cli, `migration Job command should be ["node", "<cli>", "migrations:run"], got ${jobCommand ? jobCommand[1] : 'none'}`);
if (cli && buildStage) need(runs(buildStage).includes(`test -f ${cli}`), `the build stage should assert that ${cli} exists (test -f)`);

if (problems.length) {
  console.error(`The Dockerfile (or migration Job) no longer has the shape this check reproduces; update scripts/check-image-layout.sh:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
fs.writeFileSync(healthcheckOut, hcArgv.map((a) => `${a}\0`).join(''));
const out = { CMD_SCRIPT: cmd[1], CLI_SCRIPT: cli, USER: user, HEALTHCHECK_TIMEOUT: hcTimeout, COPIES: shape, DEPS_STAGE: depsStage.name, BUILD_STAGE: buildStage.name };
for (const [k, v] of Object.entries(env)) out[`ENV_${k}`] = v;
for (const [k, v] of Object.entries(out)) console.log(`${k}\t${v}`);
JS
) || die "Dockerfile shape check failed (see above)"

declare -A DF
IMAGE_ENV=()
while IFS=$'\t' read -r key value; do
  DF[$key]=$value
  [[ $key == ENV_* ]] && IMAGE_ENV+=("${key#ENV_}=$value")
done <<<"$SHAPE"
mapfile -d '' HEALTHCHECK <"$WORK/healthcheck.argv"
CMD_SCRIPT=${DF[CMD_SCRIPT]}
CLI_SCRIPT=${DF[CLI_SCRIPT]}
pass "runtime stage: ${DF[COPIES]}; node_modules from '${DF[DEPS_STAGE]}' (npm ci --omit=dev), dist from '${DF[BUILD_STAGE]}'"
pass "runtime: USER ${DF[USER]}, ${IMAGE_ENV[*]}, CMD node $CMD_SCRIPT, no ENTRYPOINT"
pass "HEALTHCHECK is node (${#HEALTHCHECK[@]} args, ${DF[HEALTHCHECK_TIMEOUT]} s); migration Job runs node $CLI_SCRIPT migrations:run"

# ---------------------------------------------------------------- the layout

section "layout: production dependencies + dist + package.json, root-owned, read-only"

mkdir "$WORK/deps"
cp package.json package-lock.json "$WORK/deps/"
[[ -f .npmrc ]] && cp .npmrc "$WORK/deps/"
# As in scripts/install-if-needed.sh: native modules build against the local headers.
if [[ -z ${npm_config_nodedir:-} && -d /usr/include/node ]]; then export npm_config_nodedir=/usr; fi
started=$SECONDS
if (cd "$WORK/deps" && npm ci --omit=dev --no-audit --no-fund --loglevel=error) >"$WORK/npm-ci.log" 2>&1; then
  pass "npm ci --omit=dev in $((SECONDS - started)) s"
else
  cat "$WORK/npm-ci.log"
  die "npm ci --omit=dev failed"
fi

# Exactly what the runtime stage copies, nothing else (no lockfile, no .npmrc).
mkdir "$APP"
mv "$WORK/deps/node_modules" "$APP/node_modules"
cp -R dist "$APP/dist"
cp package.json "$APP/package.json"
chown -R root:root "$APP"
chmod -R a-w "$APP"

for script in "$CMD_SCRIPT" "$CLI_SCRIPT"; do
  if [[ -f $APP/$script ]]; then pass "$script is in the layout"; else fail "$script is not in the layout (dist/ built?)"; fi
done
if [[ -d $APP/node_modules/jest || -d $APP/node_modules/@nestjs/cli || -d $APP/node_modules/eslint ]]; then
  fail "dev-only packages (jest, @nestjs/cli or eslint) are in the production node_modules"
else
  pass "no dev-only packages (jest, @nestjs/cli, eslint) in node_modules"
fi
# npm installs a dev dependency that is also an optional peer of a production one (typeorm's
# ts-node, which brings typescript; npm/cli#6282). Reported, not failed: the image has them too.
dev_optional=$(node -e '
  const p = require(process.argv[1]).packages;
  console.log(Object.keys(p).filter((k) => p[k].devOptional && !k.includes("/node_modules/", 1)).map((k) => k.replace(/^node_modules\//, "")).join(" "));
' "$APP/node_modules/.package-lock.json")
if [[ -n $dev_optional ]]; then
  # shellcheck disable=SC2086 # one path per package name
  echo "note: installed as optional peers of production packages: $dev_optional ($(cd "$APP/node_modules" && du -shc $dev_optional | tail -n 1 | cut -f 1))"
fi

manifest() { find "$APP" -printf '%P\t%y\t%s\t%m\t%U:%G\t%T@\n' | sort; }
manifest >"$WORK/manifest.before"

# ---------------------------------------------------------------- running it as the image does

free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# A clean environment as in the container: the image's ENV, then the deployment's.
APP_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
NODE_BIN_DIR=$(dirname "$(command -v node)")
[[ :$APP_PATH: == *:$NODE_BIN_DIR:* ]] || APP_PATH="$NODE_BIN_DIR:$APP_PATH"
RUN_ENV=()
set_env() { # <var=value ...>: the environment of the next as_app
  RUN_ENV=("PATH=$APP_PATH" "HOME=/nonexistent" "${IMAGE_ENV[@]}" "$@")
}
as_app_within() { # <seconds> <argv...>: runs in the app dir as nobody, no new privileges, only RUN_ENV
  local seconds=$1
  shift
  # env first and exec'd away, so the master key is not left in a process's argv.
  (cd "$APP" && exec env -i "${RUN_ENV[@]}" timeout "$seconds" setpriv --reuid="$APP_UID" --regid="$APP_GID" --clear-groups --no-new-privs -- "$@")
}
as_app() { as_app_within 60 "$@"; }

# curl wrapper: <name> <method> <path> [body] [token]; body in $WORK/<name>.json, echoes the status.
BASE=""
http() {
  local args=(-sS -o "$WORK/$1.json" -w '%{http_code}' --max-time 10 -X "$2" "$BASE$3")
  [[ -n ${4:-} ]] && args+=(-H 'content-type: application/json' --data "$4")
  [[ -n ${5:-} ]] && args+=(-H "authorization: Bearer $5")
  curl "${args[@]}" || true # prints 000 when it gets no answer
}
# <file> <js expression on `b`>: prints the expression's value for the parsed JSON file.
json() { node -e 'const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const v = (0, eval)(`(b) => ${process.argv[2]}`)(b); process.stdout.write(typeof v === "string" ? v : JSON.stringify(v));' "$1" "$2" 2>/dev/null || true; }

VERSION=$(node -p 'require("./package.json").version')
MASTER_KEY=$(node -p 'require("crypto").randomBytes(32).toString("hex")')
USER_PASSWORD=$(node -p 'require("crypto").randomBytes(12).toString("hex")')

run_scenario() { # <label> <DATABASE_URL> <the app user's fresh dir under /tmp>
  local label=$1 database_url=$2 runtmp=$3
  section "$label: migration Job, server, HEALTHCHECK, API, CLI user, SIGTERM"
  local port code token payload api_token
  port=$(free_port)
  set_env "PORT=$port" "PWPUSH_MASTER_KEY=$MASTER_KEY" "DATABASE_URL=$database_url" "DB_MIGRATE_ON_START=false" "TMPDIR=$runtmp"

  if as_app node "$CLI_SCRIPT" migrations:run >"$WORK/migrate.out" 2>"$WORK/migrate.err" \
    && [[ $(json "$WORK/migrate.out" 'b.migrations + "," + b.pending') == "up-to-date,false" ]]; then
    pass "$label: node $CLI_SCRIPT migrations:run as nobody: $(cat "$WORK/migrate.out")"
  else
    fail "$label: migrations:run: $(cat "$WORK/migrate.out" "$WORK/migrate.err")"
    return
  fi

  # Without timeout or subshell in between: $! is the server's own PID, for SIGTERM.
  (cd "$APP" && exec env -i "${RUN_ENV[@]}" setpriv --reuid="$APP_UID" --regid="$APP_GID" --clear-groups --no-new-privs -- node "$CMD_SCRIPT") \
    >"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + 30)) up=""
  while ((SECONDS < deadline)); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    if curl -fsS --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then up=1; break; fi
    sleep 0.2
  done
  if [[ -z $up ]]; then
    fail "$label: server (node $CMD_SCRIPT) did not answer /healthz within 30 s:"
    tail -n 20 "$WORK/server.log"
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    return
  fi
  pass "$label: server answers /healthz (DB_MIGRATE_ON_START=false)"
  local uid
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$SERVER_PID/status" || true)
  if [[ $uid == "$APP_UID" ]]; then pass "$label: server process runs as uid $uid (nobody)"; else fail "$label: server runs as uid $uid"; fi

  if as_app_within "${DF[HEALTHCHECK_TIMEOUT]}" "${HEALTHCHECK[@]}"; then
    pass "$label: the Dockerfile's HEALTHCHECK command exits 0"
  else
    fail "$label: the Dockerfile's HEALTHCHECK command failed"
  fi
  # ... and fails when nothing listens, so the pass above means something.
  set_env "PORT=$(free_port)"
  if as_app_within "${DF[HEALTHCHECK_TIMEOUT]}" "${HEALTHCHECK[@]}"; then
    fail "$label: the HEALTHCHECK command exits 0 with no server on its port"
  else
    pass "$label: the HEALTHCHECK command fails when no server listens"
  fi
  set_env "PORT=$port" "PWPUSH_MASTER_KEY=$MASTER_KEY" "DATABASE_URL=$database_url" "DB_MIGRATE_ON_START=false" "TMPDIR=$runtmp"

  BASE="http://127.0.0.1:$port"
  payload="image-layout-secret-$(node -p 'require("crypto").randomBytes(8).toString("hex")')"
  code=$(http create POST /api/v2/pushes "{\"push\":{\"payload\":\"$payload\",\"expire_after_views\":2}}")
  token=$(json "$WORK/create.json" 'b.url_token')
  if [[ $code == 201 && -n $token ]]; then pass "$label: POST /api/v2/pushes -> 201"; else fail "$label: POST /api/v2/pushes -> $code $(cat "$WORK/create.json")"; fi
  code=$(http retrieve GET "/api/v2/pushes/$token")
  if [[ $code == 200 && $(json "$WORK/retrieve.json" 'b.payload') == "$payload" ]]; then
    pass "$label: GET /api/v2/pushes/:url_token -> 200 with the payload (decrypted with PWPUSH_MASTER_KEY)"
  else
    fail "$label: retrieve -> $code"
  fi
  code=$(http page GET "/p/$token")
  if [[ $code == 200 ]] && grep -q 'Reveal the secret' "$WORK/page.json" && [[ $(http stylesheet GET /assets/pages.css) == 200 ]]; then
    pass "$label: the recipient's page and its stylesheet render from the layout's views/ and public/"
  else
    fail "$label: GET /p/:url_token -> $code"
  fi
  code=$(http readyz GET /readyz)
  if [[ $code == 200 && $(json "$WORK/readyz.json" 'b.checks.database.status') == up ]]; then pass "$label: /readyz -> 200, database up"; else fail "$label: /readyz -> $code $(cat "$WORK/readyz.json")"; fi
  code=$(http version GET /api/v2/version)
  if [[ $code == 200 && $(json "$WORK/version.json" 'b.application_version') == "$VERSION" ]]; then
    pass "$label: /api/v2/version -> 200, application_version $VERSION (from the layout's package.json)"
  else
    fail "$label: /api/v2/version -> $code $(cat "$WORK/version.json")"
  fi

  # The CLI on the same image and database while the server runs; --password exercises argon2.
  if as_app node "$CLI_SCRIPT" users:create --email image-check@example.com --password "$USER_PASSWORD" >"$WORK/user.out" 2>"$WORK/user.err"; then
    api_token=$(json "$WORK/user.out" 'b.api_token')
  else
    api_token=""
  fi
  if [[ -n $api_token ]]; then pass "$label: node $CLI_SCRIPT users:create prints an api_token"; else fail "$label: users:create: $(cat "$WORK/user.out" "$WORK/user.err")"; fi
  code=$(http owned POST /api/v2/pushes '{"push":{"payload":"owned by the CLI user"}}' "$api_token")
  token=$(json "$WORK/owned.json" 'b.url_token')
  code=$(http active GET /api/v2/pushes/active "" "$api_token")
  if [[ $code == 200 && -n $token && $(json "$WORK/active.json" "b.map((p) => p.url_token).join()") == "$token" ]]; then
    pass "$label: the CLI user's token lists its push on /api/v2/pushes/active"
  else
    fail "$label: /api/v2/pushes/active -> $code $(cat "$WORK/active.json")"
  fi

  kill -TERM "$SERVER_PID" 2>/dev/null || true
  deadline=$((SECONDS + 15))
  while ((SECONDS < deadline)) && kill -0 "$SERVER_PID" 2>/dev/null; do sleep 0.2; done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    fail "$label: server still running 15 s after SIGTERM"
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
  code=0
  wait "$SERVER_PID" || code=$?
  SERVER_PID=""
  if [[ $code == 0 ]]; then pass "$label: SIGTERM -> exit 0"; else fail "$label: SIGTERM -> exit $code"; fi

  if grep -q 'migrations are pending' "$WORK/server.log"; then fail "$label: the server found pending migrations after migrations:run"; else pass "$label: no pending migrations at server start"; fi
  local secrets=(-e "$payload" -e "$MASTER_KEY" -e "$USER_PASSWORD")
  [[ -n $api_token ]] && secrets+=(-e "$api_token")
  if grep -qF "${secrets[@]}" "$WORK/server.log"; then fail "$label: a secret reached the server's output"; else pass "$label: no payload, API token, password or master key in the server's output"; fi
}

new_runtmp() { # sets runtmp: a fresh dir under /tmp owned by the app user (the image's writable tmpfs)
  runtmp=$(mktemp -d /tmp/check-image-layout-run.XXXXXX)
  RUNTMPS+=("$runtmp")
  chown "$APP_UID:$APP_GID" "$runtmp"
}

# <server URL> <database>: the same URL naming that database.
with_database() { node -e 'const u = new URL(process.argv[1]); u.pathname = `/${process.argv[2]}`; console.log(u.toString());' "$1" "$2"; }

new_runtmp
run_scenario sqlite "sqlite:$runtmp/pwpush.sqlite3" "$runtmp"

if [[ -n ${E2E_MYSQL_URL:-} ]]; then
  MYSQL_DB="pwpush_imgcheck_$(node -p 'require("crypto").randomBytes(6).toString("hex")')"
  mysql_admin "CREATE DATABASE \`$MYSQL_DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci" || die "could not create MariaDB database on E2E_MYSQL_URL"
  new_runtmp
  run_scenario mariadb "$(with_database "$E2E_MYSQL_URL" "$MYSQL_DB")" "$runtmp"
fi

if [[ -n ${E2E_PG_URL:-} ]]; then
  PG_DB="pwpush_imgcheck_$(node -p 'require("crypto").randomBytes(6).toString("hex")')"
  pg_admin "CREATE DATABASE \"$PG_DB\"" || die "could not create PostgreSQL database on E2E_PG_URL"
  new_runtmp
  run_scenario postgresql "$(with_database "$E2E_PG_URL" "$PG_DB")" "$runtmp"
fi

# ---------------------------------------------------------------- refusals and writes

section "production without a master key, or without DATABASE_URL; nothing written to the app directory"

new_runtmp
set_env "PORT=$(free_port)" "DATABASE_URL=sqlite:$runtmp/pwpush.sqlite3" "DB_MIGRATE_ON_START=false" "TMPDIR=$runtmp"
code=0
as_app_within 30 node "$CMD_SCRIPT" >"$WORK/nokey.log" 2>&1 || code=$?
if [[ $code != 0 && $code != 124 ]] && grep -q 'PWPUSH_MASTER_KEY' "$WORK/nokey.log"; then
  pass "without PWPUSH_MASTER_KEY the server refuses to start (exit $code): $(sed 's/\x1b\[[0-9;]*m//g' "$WORK/nokey.log" | grep -o -m1 'Invalid setting PWPUSH_MASTER_KEY[^)]*)' || true)"
else
  fail "without PWPUSH_MASTER_KEY: exit $code (124 = still running after 30 s): $(tail -n 5 "$WORK/nokey.log")"
fi

# Without DATABASE_URL the default SQLite file (and DATA_DIR) is data/ under the read-only app
# directory: one line on stderr (a JSON log line) naming both settings, exit 1, no stack trace.
set_env "PORT=$(free_port)" "PWPUSH_MASTER_KEY=$MASTER_KEY" "TMPDIR=$runtmp"
code=0
as_app_within 30 node "$CMD_SCRIPT" >"$WORK/nodb.out" 2>"$WORK/nodb.err" || code=$?
msg=$(json "$WORK/nodb.err" 'b.msg')
if [[ $code == 1 && ! -s $WORK/nodb.out && $(wc -l <"$WORK/nodb.err") == 1 && $msg == *"Cannot create directory $APP/data (permission denied)"* &&
  $msg == *"set DATA_DIR"* && $msg == *"set DATABASE_URL"* ]] && ! grep -q $'\x1b\|^ *at ' "$WORK/nodb.err"; then
  pass "without DATABASE_URL: exit 1 with one line: $msg"
else
  fail "without DATABASE_URL: exit $code, stdout $(wc -c <"$WORK/nodb.out") bytes, stderr: $(head -c 600 "$WORK/nodb.err")"
fi

manifest >"$WORK/manifest.after"
if diff -q "$WORK/manifest.before" "$WORK/manifest.after" >/dev/null; then
  pass "nothing in the app directory changed ($(wc -l <"$WORK/manifest.after") entries)"
else
  fail "the app directory changed:"
  diff "$WORK/manifest.before" "$WORK/manifest.after" | head -n 20
fi

echo
echo "check-image-layout: $passed passed, $failed failed"
((failed == 0))
