#!/usr/bin/env node
// Keeps a chart's README value table, values.schema.json and values.yaml in step:
//   node scripts/check-chart-docs.mjs helm/pwpush
//
// A "value" is a leaf of the schema: a property whose schema has no nested
// `properties` (free-form maps and Kubernetes objects such as `resources` are
// leaves). Each must have a default in values.yaml and a README table row whose
// first cell is the path in backticks; every such row must name a real value.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

const chart = process.argv[2];
if (!chart) {
  console.error("usage: check-chart-docs.mjs CHART_DIR");
  process.exit(2);
}

const schema = JSON.parse(readFileSync(join(chart, "values.schema.json"), "utf8"));
const values = parse(readFileSync(join(chart, "values.yaml"), "utf8"));
const readme = readFileSync(join(chart, "README.md"), "utf8");

const leaves = [];
(function walk(node, path) {
  for (const [key, sub] of Object.entries(node.properties ?? {})) {
    const p = path ? `${path}.${key}` : key;
    if (sub.properties) walk(sub, p);
    else leaves.push(p);
  }
})(schema, "");

const has = (obj, path) =>
  path.split(".").every((k) => {
    if (obj === null || typeof obj !== "object" || !Object.hasOwn(obj, k)) return false;
    obj = obj[k];
    return true;
  });

// First cell of each Markdown table row: | `path` | ...
const documented = new Set(
  [...readme.matchAll(/^\|\s*`([A-Za-z0-9_.]+)`\s*\|/gm)].map((m) => m[1]),
);

const problems = [];
for (const leaf of leaves) {
  if (!has(values, leaf)) problems.push(`${leaf}: in values.schema.json but has no default in values.yaml`);
  if (!documented.has(leaf)) problems.push(`${leaf}: missing from the README value table`);
}
for (const row of documented) {
  if (!leaves.includes(row)) problems.push(`${row}: documented in README but not a value in values.schema.json`);
}

for (const p of problems) console.log(`  ${p}`);
console.log(`${chart}: ${leaves.length} values, ${problems.length ? `${problems.length} documentation problems` : "all documented"}`);
process.exit(problems.length ? 1 : 0);
