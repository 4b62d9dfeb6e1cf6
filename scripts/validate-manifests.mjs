#!/usr/bin/env node
// Offline validation of rendered Kubernetes manifests (the output of `helm template`).
//
//   node scripts/validate-manifests.mjs [--label NAME] FILE|- [FILE ...]
//   node scripts/validate-manifests.mjs --self-test
//
// For every YAML document:
//   1. schema: the kubernetes-models class for its apiVersion/kind is constructed
//      and .validate()d (JSON schema of the Kubernetes OpenAPI spec / the
//      Prometheus Operator CRDs). A kind without a model is an error, never a skip.
//   2. unknown fields: kubernetes-models' schemas do not set
//      additionalProperties: false, so a misspelt or misplaced field (e.g.
//      `readOnlyRootFileSystem`) validates fine and the API server would drop it
//      silently. We therefore run the same validator a second time with the
//      document wrapped in a Proxy that records which properties the validator
//      reads. The compiled validators read every property their schema declares
//      (`data.foo !== undefined`) and enumerate the keys of maps
//      (additionalProperties: {...}); so, in an object where the validator read
//      some declared property, any key it never read is not in the schema.
//      Objects the validator never looks into (schema just says "object", e.g.
//      x-kubernetes-preserve-unknown-fields) are free-form and accepted.
//   3. chart policy: pod specs are hardened (non-root, read-only root fs, no
//      privilege escalation, all capabilities dropped, seccomp RuntimeDefault,
//      no service account token, memory limit), the Deployment has its probes,
//      and pre-install hooks only read Secrets/ConfigMaps that exist before they
//      run (hooks with a lower weight, or not created by the chart at all).
//
// Exit status: 0 when every document passes, 1 otherwise (2 on usage errors).

import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

// apiVersion groups served by packages other than kubernetes-models.
const THIRD_PARTY_MODELS = {
  "monitoring.coreos.com": "@kubernetes-models/prometheus-operator",
};

// ---------------------------------------------------------------- models

const modelCache = new Map();

/** The kubernetes-models class for apiVersion/kind, or null if there is none. */
async function loadModel(apiVersion, kind) {
  const cacheKey = `${apiVersion}/${kind}`;
  if (modelCache.has(cacheKey)) return modelCache.get(cacheKey);
  let model = null;
  // Guard the import path: kind and version come from the document.
  if (/^[A-Z][A-Za-z0-9]*$/.test(kind) && /^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(apiVersion)) {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    const pkg = THIRD_PARTY_MODELS[group] ?? "kubernetes-models";
    const specifier = group ? `${pkg}/${group}/${version}/${kind}` : `${pkg}/${version}/${kind}`;
    try {
      const mod = await import(specifier);
      const candidate = mod[kind];
      if (candidate && candidate.apiVersion === apiVersion && candidate.kind === kind) model = candidate;
    } catch (err) {
      if (!["ERR_MODULE_NOT_FOUND", "ERR_PACKAGE_PATH_NOT_EXPORTED"].includes(err.code)) throw err;
    }
  }
  modelCache.set(cacheKey, model);
  return model;
}

// ---------------------------------------------------------- unknown fields

const isPlainObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Runs `validate` with `root` wrapped in recording proxies and returns the paths
 * of keys the schema does not declare (see the header comment).
 */
function findUnknownFields(root, validate) {
  const records = new Map(); // object -> { path, read: Set<string>, enumerated }
  const proxies = new WeakMap();

  const wrap = (value, path) => {
    if (value === null || typeof value !== "object") return value;
    if (proxies.has(value)) return proxies.get(value);
    const rec = { path, read: new Set(), enumerated: false };
    if (!Array.isArray(value)) records.set(value, rec);
    const note = (key) => {
      if (typeof key === "string") rec.read.add(key);
    };
    const proxy = new Proxy(value, {
      get(target, key) {
        note(key);
        const v = Reflect.get(target, key);
        return typeof key === "string" && Object.hasOwn(target, key) ? wrap(v, `${path}/${key}`) : v;
      },
      has(target, key) {
        note(key);
        return Reflect.has(target, key);
      },
      getOwnPropertyDescriptor(target, key) {
        note(key);
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
      ownKeys(target) {
        rec.enumerated = true; // a map: every key is checked against additionalProperties
        return Reflect.ownKeys(target);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };

  validate(wrap(root, ""));

  const unknown = [];
  for (const [obj, rec] of records) {
    if (rec.enumerated || rec.read.size === 0) continue;
    for (const key of Object.keys(obj)) {
      if (!rec.read.has(key)) unknown.push(`${rec.path}/${key}`);
    }
  }
  return unknown;
}

// ------------------------------------------------------------ chart policy

const HOOK = "helm.sh/hook";
const HOOK_WEIGHT = "helm.sh/hook-weight";

function podSpecOf(doc) {
  if (["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"].includes(doc.kind)) {
    return doc.spec?.template?.spec;
  }
  if (doc.kind === "CronJob") return doc.spec?.jobTemplate?.spec?.template?.spec;
  if (doc.kind === "Pod") return doc.spec;
  return undefined;
}

function checkHardening(doc) {
  const spec = podSpecOf(doc);
  if (!spec) return [];
  const errors = [];
  const podSc = spec.securityContext ?? {};
  if (spec.automountServiceAccountToken !== false) {
    errors.push("pod must set automountServiceAccountToken: false");
  }
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const volumes = new Map((spec.volumes ?? []).map((v) => [v.name, v]));
  for (const c of containers) {
    const sc = c.securityContext ?? {};
    const where = `container ${c.name}`;
    if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) !== true) errors.push(`${where}: runAsNonRoot must be true`);
    if (sc.allowPrivilegeEscalation !== false) errors.push(`${where}: allowPrivilegeEscalation must be false`);
    if (sc.readOnlyRootFilesystem !== true) errors.push(`${where}: readOnlyRootFilesystem must be true`);
    if (sc.privileged === true) errors.push(`${where}: must not be privileged`);
    if (!(sc.capabilities?.drop ?? []).includes("ALL")) errors.push(`${where}: capabilities.drop must include ALL`);
    if (sc.capabilities?.add?.length) errors.push(`${where}: must not add capabilities`);
    const seccomp = sc.seccompProfile?.type ?? podSc.seccompProfile?.type;
    if (!["RuntimeDefault", "Localhost"].includes(seccomp)) errors.push(`${where}: seccompProfile must be RuntimeDefault`);
    if (!c.resources?.limits?.memory) errors.push(`${where}: needs a memory limit`);
    if (typeof c.image !== "string" || !/(:[^/:]+|@sha256:[0-9a-f]{64})$/.test(c.image) || c.image.endsWith(":latest")) {
      errors.push(`${where}: image must be pinned by tag or digest (not :latest): ${c.image}`);
    }
    // With a read-only root, /tmp is the one writable place and must be a volume.
    const tmp = (c.volumeMounts ?? []).find((m) => m.mountPath === "/tmp");
    if (!tmp || !volumes.get(tmp.name)?.emptyDir) errors.push(`${where}: /tmp must be an emptyDir mount`);
  }
  if (doc.kind === "Deployment") {
    for (const c of spec.containers ?? []) {
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
        if (!c[probe]) errors.push(`container ${c.name}: missing ${probe}`);
      }
      if (c.readinessProbe && c.readinessProbe.httpGet?.path !== "/readyz") {
        errors.push(`container ${c.name}: readinessProbe must GET /readyz (it checks the database)`);
      }
      if (c.livenessProbe && c.livenessProbe.httpGet?.path !== "/healthz") {
        errors.push(`container ${c.name}: livenessProbe must GET /healthz (it must not depend on the database)`);
      }
    }
  }
  return errors;
}

const hookEvents = (doc) =>
  (doc.metadata?.annotations?.[HOOK] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const hookWeight = (doc) => Number.parseInt(doc.metadata?.annotations?.[HOOK_WEIGHT] ?? "0", 10);

/** Names of Secrets and ConfigMaps a pod spec reads, as [kind, name] pairs. */
function referencedConfig(spec) {
  const refs = [];
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const e of c.env ?? []) {
      if (e.valueFrom?.secretKeyRef) refs.push(["Secret", e.valueFrom.secretKeyRef.name]);
      if (e.valueFrom?.configMapKeyRef) refs.push(["ConfigMap", e.valueFrom.configMapKeyRef.name]);
    }
    for (const e of c.envFrom ?? []) {
      if (e.secretRef) refs.push(["Secret", e.secretRef.name]);
      if (e.configMapRef) refs.push(["ConfigMap", e.configMapRef.name]);
    }
  }
  for (const v of spec.volumes ?? []) {
    if (v.secret) refs.push(["Secret", v.secret.secretName]);
    if (v.configMap) refs.push(["ConfigMap", v.configMap.name]);
  }
  if (spec.serviceAccountName) refs.push(["ServiceAccount", spec.serviceAccountName]);
  return refs;
}

/**
 * A pre-install hook runs before the release's ordinary resources exist, so
 * whatever it reads must be an earlier hook or come from outside the chart.
 */
function checkHookOrdering(docs) {
  const errors = [];
  const byName = new Map(docs.map((d) => [`${d.kind}/${d.metadata?.name}`, d]));
  for (const doc of docs) {
    const events = hookEvents(doc);
    const spec = podSpecOf(doc);
    if (!spec || !events.includes("pre-install")) continue;
    for (const [kind, name] of referencedConfig(spec)) {
      const dep = byName.get(`${kind}/${name}`);
      if (!dep) continue; // not rendered by the chart: it must exist beforehand (e.g. existingSecret)
      const label = `${doc.kind}/${doc.metadata.name}`;
      if (!hookEvents(dep).includes("pre-install")) {
        errors.push(`${label}: pre-install hook reads ${kind}/${name}, which is only created after pre-install hooks run`);
      } else if (hookWeight(dep) >= hookWeight(doc)) {
        errors.push(`${label}: pre-install hook reads ${kind}/${name}, a hook that must have a lower hook-weight`);
      }
    }
  }
  return errors;
}

// ------------------------------------------------------------- validation

/** Validates parsed documents; returns [{ label, errors }] for every document. */
async function validateDocuments(docs) {
  const results = [];
  const seen = new Set();
  for (const doc of docs) {
    const errors = [];
    if (!isPlainObject(doc)) {
      results.push({ label: "(not an object)", errors: ["document is not a mapping"] });
      continue;
    }
    const { apiVersion, kind } = doc;
    const name = doc.metadata?.name;
    const label = `${kind}/${name} (${apiVersion})`;
    if (typeof apiVersion !== "string" || typeof kind !== "string" || typeof name !== "string" || !name) {
      results.push({ label, errors: ["apiVersion, kind and metadata.name are required"] });
      continue;
    }
    const identity = `${apiVersion}/${kind}/${doc.metadata.namespace ?? ""}/${name}`;
    if (seen.has(identity)) errors.push("duplicate resource (same apiVersion, kind, namespace and name)");
    seen.add(identity);

    const Model = await loadModel(apiVersion, kind);
    if (!Model) {
      errors.push(`no kubernetes-models schema for ${apiVersion} ${kind}: cannot validate it, so it is rejected`);
    } else {
      const model = new Model(doc);
      let valid = true;
      try {
        model.validate();
      } catch (err) {
        valid = false;
        errors.push(`schema: ${err.message}`);
      }
      if (valid) {
        const unknown = findUnknownFields(model, (proxy) => Model.prototype.validate.call(proxy));
        for (const path of unknown) errors.push(`unknown field ${path}`);
      }
    }
    errors.push(...checkHardening(doc));
    results.push({ label, errors });
  }
  const orderErrors = checkHookOrdering(docs.filter(isPlainObject));
  if (orderErrors.length) results.push({ label: "helm hook ordering", errors: orderErrors });
  return results;
}

function parseManifests(text, source) {
  const docs = [];
  for (const d of parseAllDocuments(text)) {
    if (d.errors.length) throw new Error(`${source}: YAML error: ${d.errors[0].message}`);
    const value = d.toJS();
    if (value !== null && value !== undefined) docs.push(value);
  }
  return docs;
}

// -------------------------------------------------------------- self-test

const hardenedPod = () => ({
  automountServiceAccountToken: false,
  securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: "RuntimeDefault" } },
  containers: [
    {
      name: "api",
      image: "pwpush-api:1.0.0",
      ports: [{ name: "http", containerPort: 5100 }],
      startupProbe: { httpGet: { path: "/healthz", port: "http" } },
      readinessProbe: { httpGet: { path: "/readyz", port: "http" } },
      livenessProbe: { httpGet: { path: "/healthz", port: "http" } },
      securityContext: {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      },
      resources: { limits: { memory: "256Mi" }, requests: { cpu: "100m" } },
      volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
    },
  ],
  volumes: [{ name: "tmp", emptyDir: { sizeLimit: "64Mi" } }],
});

const deployment = (mutate = () => {}) => {
  const d = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", labels: { "any.example.com/label": "free-form map keys are fine" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: hardenedPod() },
    },
  };
  mutate(d);
  return d;
};

const serviceMonitor = (mutate = () => {}) => {
  const d = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "ServiceMonitor",
    metadata: { name: "web" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      endpoints: [{ port: "http", path: "/metrics", authorization: { type: "Bearer", credentials: { name: "s", key: "k" } } }],
    },
  };
  mutate(d);
  return d;
};

const hookJob = (secretName) => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "migrate", annotations: { [HOOK]: "pre-install,pre-upgrade", [HOOK_WEIGHT]: "-5" } },
  spec: {
    template: {
      spec: (() => {
        const p = hardenedPod();
        p.restartPolicy = "Never";
        const c = p.containers[0];
        delete c.ports;
        delete c.startupProbe;
        delete c.readinessProbe;
        delete c.livenessProbe;
        c.env = [{ name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: secretName, key: "DATABASE_URL" } } }];
        return p;
      })(),
    },
  },
});

const secret = (name, annotations) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, ...(annotations ? { annotations } : {}) },
  data: { DATABASE_URL: "eA==" },
});

// [description, documents, expected error substring or null for "must pass"]
const SELF_TESTS = [
  ["valid hardened Deployment", [deployment()], null],
  [
    "unknown field in a container",
    [deployment((d) => (d.spec.template.spec.containers[0].readOnlyRootFileSystem = true))],
    "unknown field /spec/template/spec/containers/0/readOnlyRootFileSystem",
  ],
  ["unknown top-level field", [deployment((d) => (d.bogus = 1))], "unknown field /bogus"],
  ["unknown field in metadata", [deployment((d) => (d.metadata.lables = { a: "b" }))], "unknown field /metadata/lables"],
  [
    "field at the wrong level",
    [deployment((d) => (d.spec.template.spec.containers[0].securityContext.fsGroup = 1))],
    "unknown field /spec/template/spec/containers/0/securityContext/fsGroup",
  ],
  ["wrong type", [deployment((d) => (d.spec.replicas = "three"))], "schema: data/spec/replicas must be integer"],
  ["kind without a model", [{ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } }], "no kubernetes-models schema"],
  ["unknown apiVersion of a known kind", [deployment((d) => (d.apiVersion = "apps/v9"))], "no kubernetes-models schema"],
  ["valid ServiceMonitor", [serviceMonitor()], null],
  [
    "unknown field in a ServiceMonitor endpoint",
    [serviceMonitor((d) => (d.spec.endpoints[0].bearerTokn = "x"))],
    "unknown field /spec/endpoints/0/bearerTokn",
  ],
  [
    "writable root filesystem",
    [deployment((d) => (d.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = false))],
    "readOnlyRootFilesystem must be true",
  ],
  [
    "missing readiness probe",
    [deployment((d) => delete d.spec.template.spec.containers[0].readinessProbe)],
    "missing readinessProbe",
  ],
  ["duplicate resource", [deployment(), deployment()], "duplicate resource"],
  [
    "hook Job reading a Secret created after hooks",
    [secret("app"), hookJob("app")],
    "only created after pre-install hooks run",
  ],
  [
    "hook Job reading an earlier hook Secret",
    [secret("app-migrate", { [HOOK]: "pre-install,pre-upgrade", [HOOK_WEIGHT]: "-10" }), hookJob("app-migrate")],
    null,
  ],
  ["hook Job reading an external Secret", [hookJob("existing")], null],
];

async function selfTest() {
  let passed = 0;
  let failed = 0;
  for (const [description, docs, expected] of SELF_TESTS) {
    const results = await validateDocuments(docs);
    const errors = results.flatMap((r) => r.errors.map((e) => `${r.label}: ${e}`));
    const ok = expected === null ? errors.length === 0 : errors.some((e) => e.includes(expected));
    console.log(`${ok ? "ok  " : "FAIL"} self-test: ${description}`);
    if (!ok) {
      console.log(`       expected ${expected === null ? "no error" : `an error containing "${expected}"`}, got:`);
      for (const e of errors.length ? errors : ["(no error)"]) console.log(`         ${e}`);
      failed++;
    } else {
      passed++;
    }
  }
  console.log(`validate-manifests self-test: ${passed} passed, ${failed} failed`);
  return failed === 0;
}

// ------------------------------------------------------------------- main

async function main(argv) {
  if (argv.includes("--self-test")) return (await selfTest()) ? 0 : 1;
  let label = "";
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--label") label = argv[++i] ?? "";
    else files.push(argv[i]);
  }
  if (files.length === 0) {
    console.error("usage: validate-manifests.mjs [--label NAME] FILE|- [FILE ...] | --self-test");
    return 2;
  }
  const docs = [];
  for (const file of files) {
    const text = readFileSync(file === "-" ? 0 : file, "utf8");
    docs.push(...parseManifests(text, file === "-" ? "stdin" : file));
  }
  if (docs.length === 0) {
    console.error(`${label || files.join(" ")}: no manifests to validate`);
    return 1;
  }
  const results = await validateDocuments(docs);
  let bad = 0;
  const prefix = label ? `[${label}] ` : "";
  for (const { label: what, errors } of results) {
    if (errors.length === 0) {
      console.log(`${prefix}ok   ${what}`);
      continue;
    }
    bad++;
    console.log(`${prefix}FAIL ${what}`);
    for (const e of errors) console.log(`${prefix}       ${e}`);
  }
  console.log(`${prefix}${docs.length} manifests, ${bad ? `${bad} with errors` : "all valid"}`);
  return bad === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err.stack || String(err));
    process.exit(2);
  },
);
