#!/usr/bin/env node
// Runs the built server as a rendered chart configures it, and checks what an ingress in front
// of it would see:
//
//   node scripts/check-chart-ingress.mjs RENDERED.yaml
//
// The server gets the Deployment's own environment (its ConfigMap and the container's `value`
// entries; the Secret's settings are stood in for: an SQLite database migrated by the CLI, as the
// chart's hook Job does, a master key, and a REDIS_URL where nothing listens; those the chart
// passes as files, <NAME>_FILE under the Secret's mount, are written to files of a local
// directory and their paths moved there), with the container's ports moved to free local ports. Requests come from 127.0.0.1, standing in for the
// ingress controller (whose cluster ranges the checks require in TRUST_PROXY), and go where the
// manifests send them: Ingress backend -> Service port -> container port; ServiceMonitor (or the
// Service's "metrics" port) -> container port; the probes' ports.
//
// Checks: the pod trusts the ingress (client address in the audit log, https links, __Host-
// Secure cookies); /metrics is not reachable through the Ingress but is on the scrape port;
// readiness answers 200 while Redis is unreachable. Prints PASS/FAIL lines; exit 1 on any FAIL.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseAllDocuments } from "yaml";

const SERVER_MAIN = "dist/apps/api/src/main.js";
const CLI_MAIN = "dist/apps/cli/src/main.js";
const CLUSTER_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"];
const CLIENT = "203.0.113.50";

const file = process.argv[2];
if (!file) {
  console.error("usage: check-chart-ingress.mjs RENDERED.yaml");
  process.exit(2);
}
if (!existsSync(SERVER_MAIN) || !existsSync(CLI_MAIN)) {
  console.error(`${SERVER_MAIN} is missing: npm run build first`);
  process.exit(2);
}

let failed = 0;
const check = (description, ok, detail = "") => {
  if (!ok) failed++;
  console.log(`${ok ? "PASS" : "FAIL"} ${description}${ok || !detail ? "" : ` (${detail})`}`);
  return ok;
};

// ----------------------------------------------------------- manifests

const docs = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS()).filter(Boolean);
const only = (kind) => docs.filter((d) => d.kind === kind);
const [deployment] = only("Deployment");
const [service] = only("Service");
const [ingress] = only("Ingress");
const [serviceMonitor] = only("ServiceMonitor");
if (!deployment || !service || !ingress) {
  console.error("the render needs a Deployment, a Service and an Ingress (ingress.enabled=true)");
  process.exit(2);
}
const container = deployment.spec.template.spec.containers[0];
const configMapName = container.envFrom?.find((source) => source.configMapRef)?.configMapRef.name;
const configMap = only("ConfigMap").find((c) => c.metadata.name === configMapName);
const env = { ...(configMap?.data ?? {}) };
for (const entry of container.env ?? []) if (typeof entry.value === "string") env[entry.name] = entry.value;

/** A container port (name or number) -> its number. */
const containerPort = (port) => (typeof port === "number" ? port : container.ports.find((p) => p.name === port)?.containerPort);
/** A Service port (name or number) -> the container port it targets. */
const servicePortTarget = (port) => {
  const entry = service.spec.ports.find((p) => p.name === port || p.port === port);
  return entry && containerPort(entry.targetPort ?? entry.port);
};

const trusted = (env.TRUST_PROXY ?? "").split(/[\s,]+/).filter(Boolean);
check(
  `the pod trusts the cluster's private ranges, where the ingress controller runs (TRUST_PROXY=${env.TRUST_PROXY ?? ""})`,
  CLUSTER_RANGES.every((range) => trusted.includes(range)),
);
const httpPort = containerPort("http");
const metricsPort = containerPort("metrics");
check("the server listens on the container port named http (PORT)", Number(env.PORT) === httpPort, `PORT=${env.PORT}, http=${httpPort}`);
check("/metrics has a container port of its own (METRICS_PORT)", metricsPort !== undefined && Number(env.METRICS_PORT) === metricsPort && metricsPort !== httpPort);
const routed = ingress.spec.rules.flatMap((rule) => rule.http.paths.map((path) => ({ host: rule.host, path: path.path, port: servicePortTarget(path.backend.service.port.name ?? path.backend.service.port.number) })));
check("every Ingress path goes to the http container port, none to the metrics port", routed.length > 0 && routed.every((r) => r.port === httpPort), JSON.stringify(routed));
const scrape = serviceMonitor
  ? { via: "the ServiceMonitor", port: servicePortTarget(serviceMonitor.spec.endpoints[0].port), path: serviceMonitor.spec.endpoints[0].path ?? "/metrics" }
  : { via: "the Service's metrics port", port: servicePortTarget("metrics"), path: "/metrics" };
check(`${scrape.via} scrapes the metrics container port`, scrape.port !== undefined && scrape.port === metricsPort, `port ${scrape.port}`);
const readiness = container.readinessProbe?.httpGet;
check("the readiness probe is an HTTP GET on the http port", readiness !== undefined && containerPort(readiness.port) === httpPort);

// ------------------------------------------------------------- runtime

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const local = new Map();
for (const { containerPort: port } of container.ports) local.set(port, await freePort());
const deadPort = await freePort(); // nothing listens there: a Redis outage
const dataDir = mkdtempSync(join(tmpdir(), "pwpush-chart-"));
const standIns = {
  DATABASE_URL: `sqlite:${join(dataDir, "pwpush.sqlite3")}`,
  PWPUSH_MASTER_KEY: "0".repeat(64),
  REDIS_URL: `redis://127.0.0.1:${deadPort}`,
};
// Where the container mounts a Secret: a <NAME>_FILE there gets the stand-in for NAME, locally.
const volumes = new Map(deployment.spec.template.spec.volumes.map((v) => [v.name, v]));
const secretMounts = (container.volumeMounts ?? []).filter((m) => volumes.get(m.name)?.secret).map((m) => m.mountPath);
const secretsDir = mkdtempSync(join(tmpdir(), "pwpush-chart-secrets-"));
const secretEnv = {};
for (const [name, path] of Object.entries(env)) {
  const mount = secretMounts.find((dir) => path.startsWith(`${dir}/`));
  if (!name.endsWith("_FILE") || mount === undefined) continue;
  const setting = name.slice(0, -"_FILE".length);
  const standInFile = join(secretsDir, relative(mount, path));
  writeFileSync(standInFile, `${standIns[setting] ?? ""}\n`);
  secretEnv[name] = standInFile;
  delete standIns[setting];
}
check(
  "the Secret's settings reach the pod as files (DATABASE_URL_FILE, PWPUSH_MASTER_KEY_FILE), none as values",
  ["DATABASE_URL", "PWPUSH_MASTER_KEY"].every((name) => secretEnv[`${name}_FILE`] && env[name] === undefined),
);
const runEnv = {
  PATH: process.env.PATH,
  ...env,
  ...secretEnv,
  ...standIns,
  PORT: String(local.get(httpPort)),
  ...(env.METRICS_PORT === undefined ? {} : { METRICS_PORT: String(local.get(Number(env.METRICS_PORT))) }),
  DATA_DIR: dataDir,
};
const cli = (...args) => {
  const result = spawnSync(process.execPath, [CLI_MAIN, ...args], { env: runEnv, encoding: "utf8", timeout: 60_000 });
  if (result.status !== 0) throw new Error(`cli ${args[0]} failed: ${result.stderr}`);
  return result.stdout;
};
const url = (containerPortNumber, path) => `http://127.0.0.1:${local.get(containerPortNumber)}${path}`;

let server;
let output = "";
try {
  cli("migrations:run");
  const { api_token: token } = JSON.parse(cli("users:create", "--email", "chart-check@example.com"));
  server = spawn(process.execPath, [SERVER_MAIN], { env: runEnv, stdio: ["ignore", "pipe", "pipe"] });
  server.stdout.on("data", (chunk) => (output += chunk));
  server.stderr.on("data", (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}:\n${output}`);
    if (await fetch(url(httpPort, "/healthz")).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const ready = await fetch(url(containerPort(readiness.port), readiness.path));
  const readyBody = await ready.json();
  check(`readiness (${readiness.path}) answers 200 while Redis is unreachable, reporting it`, ready.status === 200 && readyBody.checks?.redis?.status === "down", `${ready.status} ${JSON.stringify(readyBody)}`);

  const { host } = routed[0];
  const viaIngress = { "x-forwarded-for": CLIENT, "x-forwarded-proto": "https", "x-forwarded-host": host };
  const created = await fetch(url(routed[0].port, "/api/v2/pushes"), {
    method: "POST",
    headers: { ...viaIngress, authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ push: { payload: "through the ingress" } }),
  });
  const push = await created.json();
  const linkBase = push.html_url?.replace(/\/p\/.*/, "/p/…");
  check(`links follow the forwarded scheme and host (html_url ${linkBase})`, created.status === 201 && linkBase === `https://${host}/p/…`);
  const audit = await (await fetch(url(routed[0].port, `/api/v2/pushes/${push.url_token}/audit`), { headers: { ...viaIngress, authorization: `Bearer ${token}` } })).json();
  const ips = (audit.logs ?? []).map((entry) => entry.ip);
  check(`the audit log records the client, not the ingress (${ips.join(", ")})`, ips.length > 0 && ips.every((ip) => ip === CLIENT));
  const page = await fetch(url(routed[0].port, "/users/sign_in"), { headers: viaIngress });
  const cookie = page.headers.getSetCookie()[0] ?? "";
  check(`cookies over the forwarded https are __Host- and Secure (${cookie.replace(/=[^;]*/, "=…")})`, cookie.startsWith("__Host-pwpush_csrf=") && /; Secure/.test(cookie));

  for (const { host: routedHost, path, port } of routed) {
    const metricsPath = `${path.replace(/\/$/, "")}/metrics`;
    const response = await fetch(url(port, metricsPath), { headers: viaIngress });
    check(`${routedHost}${metricsPath} through the Ingress answers 404`, response.status === 404, `status ${response.status}`);
  }
  const scraped = await fetch(url(scrape.port, scrape.path));
  const text = await scraped.text();
  check(
    `${scrape.via} gets the metrics, Redis reported down (pwpush_dependency_up)`,
    scraped.status === 200 && /^pwpush_dependency_up\{dependency="redis"\} 0$/m.test(text),
    `status ${scraped.status}`,
  );
} catch (error) {
  check("the rendered configuration runs", false, error.message);
} finally {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(secretsDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
