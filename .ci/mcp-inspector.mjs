// The MCP Inspector's CLI as a second real client of zk mcp: each call
// starts the server as the Inspector starts any stdio server and makes
// one request; every tool is called, the new ones included.
// Usage: node mcp-inspector.mjs INSPECTOR ZK_BINARY VAULT_DIR
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [inspector, zk, vault] = process.argv.slice(2);

// inspect runs one Inspector CLI request; args are the Inspector's
// options after the server's command. It returns the exit status and the
// JSON printed.
function inspect(...args) {
  const r = spawnSync(inspector, ["--cli", "-e", "ZK_TODAY=2026-12-02", zk, "mcp", "--vault", vault, ...args],
    { encoding: "utf8", timeout: 120000 });
  assert.ok(!r.error, `inspector: ${r.error}`);
  const out = r.stdout.trim();
  // A tool error prints the result, then a line of the CLI's own error.
  const first = out.startsWith("{") ? out.slice(0, out.lastIndexOf("\n}") + 2) : out;
  let json;
  try { json = JSON.parse(first); } catch { assert.fail(`not JSON (exit ${r.status}): ${out}\n${r.stderr}`); }
  return { status: r.status, json, stderr: r.stderr };
}

// call calls a tool with key=value arguments (a value that is JSON is
// sent as such, as the Inspector does) and returns its structured result.
function call(tool, args = {}) {
  const pairs = Object.entries(args).flatMap(([k, v]) => ["--tool-arg", `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`]);
  const { status, json } = inspect("--method", "tools/call", "--tool-name", tool, ...pairs);
  assert.equal(status, 0, `${tool}: exit ${status}: ${JSON.stringify(json)}`);
  assert.ok(!json.isError, `${tool}: ${JSON.stringify(json.content)}`);
  assert.ok(json.structuredContent, `${tool}: no structured content`);
  console.log(`ok ${tool}`);
  return json.structuredContent;
}

const { json: listed } = inspect("--method", "tools/list");
const names = listed.tools.map((t) => t.name).sort();
assert.deepEqual(names, ["append_section", "backlinks", "base", "check", "links", "list", "move", "new", "properties", "read_note",
  "rejudge", "run_falsifier", "runs", "search", "set_property", "stale", "tend", "verdicts"]);
for (const t of listed.tools) {
  assert.ok(t.annotations, `${t.name}: no annotations`);
  if (["check", "stale", "search", "links", "backlinks", "read_note", "runs", "list", "properties", "base"].includes(t.name)) {
    assert.equal(t.annotations.readOnlyHint, true, `${t.name}: not read-only`);
  }
}
assert.equal(listed.tools.find((t) => t.name === "move").annotations.destructiveHint, true);
console.log(`ok tools/list: ${names.length} tools, annotated`);

const rate = "A Rate Needs Its Denominator to Be Compared";
assert.ok(call("check").summary.notes > 0);
assert.equal(call("stale").today, "2026-12-02");
assert.ok(call("search", { query: "denominator", limit: 3 }).hits.length > 0);
// A query that can match nothing as written is an error with its reason,
// not zero hits.
const bad = inspect("--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=claim:(");
assert.ok(bad.json.isError, `search claim:( answered ${JSON.stringify(bad.json)}`);
assert.match(bad.json.content.map((c) => c.text).join("\n"), /bad query: the query language has no parentheses/);
console.log("ok search refused claim:(");
assert.ok(call("links", { note: rate }).links.some((l) => l.relation === "extends" && l.resolved));
assert.ok(Array.isArray(call("backlinks", { note: rate }).backlinks));
assert.match(call("read_note", { note: rate, section: "Claim" }).text, /^## Claim\n/);
assert.equal(call("tend", { note: rate }).date, "2026-12-02");
const created = call("new", { title: "Inspected Notes Are Written Too" });
assert.ok(existsSync(join(vault, created.path)), `new: ${created.path} missing`);
// Where the type's notes live, not a new top-level "Permanent Notes/".
assert.ok(created.path.startsWith("3. Resources/Permanent Notes/"), `new: ${created.path}`);
assert.ok(call("list", { type: ["permanent"], limit: 2 }).notes.length === 2);
assert.deepEqual(call("runs", { note: "Unapproved" }).runs, []);
assert.deepEqual(call("rejudge", { note: "Unapproved" }).runs, []);
assert.ok(call("properties").properties.some((p) => p.name === "tags"));
const rated = call("base", { base: "Tended.base", limit: 3 });
assert.equal(rated.groups.flatMap((g) => g.rows).length, 3);
assert.ok(rated.items > 3 && rated.next_offset === 3, `base: ${JSON.stringify(rated)}`);
call("set_property", { note: "Unapproved", key: "rating", value: 4 });
call("append_section", { note: "Unapproved", section: "Evidence", text: "- appended through the Inspector" });
const text = readFileSync(join(vault, "Unapproved.md"), "utf8");
assert.match(text, /^---\nrating: 4\n---\n/);
assert.match(text, /## Evidence\n\n- appended through the Inspector\n/);
const plan = call("move", { from: "Unapproved#Claim", to: "#Claim restated" });
assert.ok(plan.dry_run && plan.confirm && plan.heading, `move: ${JSON.stringify(plan)}`);
call("move", { from: "Unapproved#Claim", to: "#Claim restated", confirm: plan.confirm });
assert.match(readFileSync(join(vault, "Unapproved.md"), "utf8"), /^## Claim restated$/m);

// The falsifier's command was never approved with zk trust: refused, not
// run; its number is an integer.
const refused = inspect("--method", "tools/call", "--tool-name", "run_falsifier", "--tool-arg", "note=Unapproved", "--tool-arg", "falsifier=1");
assert.notEqual(refused.status, 0, "an unapproved command ran");
const said = refused.json.content.map((c) => c.text).join("\n");
assert.match(said, /not approved/);
assert.match(said, /an agent cannot approve/);
assert.ok(!existsSync(join(vault, "ran.txt")), "the unapproved command left ran.txt");
console.log("ok run_falsifier refused");

// Resources: paged, each page under the server's page size.
const { json: page } = inspect("--method", "resources/list");
assert.ok(page.resources.some((r) => r.uri === `zk://note/3.%20Resources/Permanent%20Notes/${encodeURIComponent(rate)}.md`),
  "no zk://note/ resource for the note");
const { json: read } = inspect("--method", "resources/read", "--uri", "zk://note/Unapproved.md");
assert.match(read.contents[0].text, /^# Unapproved$/m);
console.log("ok resources");
console.log("mcp inspector client: all tools answered");
