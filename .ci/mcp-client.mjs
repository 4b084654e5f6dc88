// A real MCP client for zk mcp: the official TypeScript SDK starts the
// server as a subprocess over stdio, lists its tools, calls each one and
// checks that an unapproved falsifier command is refused and not run.
// Usage: node mcp-client.mjs ZK_BINARY VAULT_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ProgressNotificationSchema, ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [zk, vault] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: zk,
  args: ["mcp", "--vault", vault],
  env: { ...process.env, ZK_TODAY: "2026-12-02" },
  stderr: "inherit",
});
const client = new Client({ name: "zk-ci", version: "1.0.0" });
await client.connect(transport);
// Progress notifications, by token. The SDK's own onprogress drops a
// notification that arrives in the same read as the call's answer (it
// runs notification handlers a tick later, and the answer has removed the
// call's handler by then), which lost the last, or every, notification of
// a fast check now and then: they are collected here instead, by a token
// of the test's own.
const progressOf = new Map();
client.setNotificationHandler(ProgressNotificationSchema, (n) => {
  const { progressToken, ...p } = n.params;
  if (!progressOf.has(progressToken)) progressOf.set(progressToken, []);
  progressOf.get(progressToken).push(p);
});

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, ["append_section", "backlinks", "base", "check", "links", "list", "move", "new", "properties", "read_note", "rejudge", "run_falsifier", "runs", "search", "set_property", "stale", "tend", "verdicts"]);
for (const t of tools) {
  assert.ok(t.inputSchema?.type === "object", `${t.name}: no input schema`);
  assert.ok(t.outputSchema?.type === "object", `${t.name}: no output schema`);
}

// call returns a tool's structured result, failing on a tool error; with
// progress (an array), it sends a progress token and each notification is
// pushed onto it, waiting after the answer (up to 10 s) for the last, the
// one whose progress is its total: notifications travel apart from the
// answer.
let tokens = 0;
async function call(name, args, progress) {
  const params = { name, arguments: args };
  const token = `${name}-${++tokens}`;
  if (progress) params._meta = { progressToken: token };
  const res = await client.callTool(params);
  assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content)}`);
  assert.ok(res.structuredContent, `${name}: no structured content`);
  if (progress) {
    for (const deadline = Date.now() + 10000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
      const got = progressOf.get(token) ?? [];
      if (got.length > 0 && got.at(-1).progress === got.at(-1).total) break;
    }
    progress.push(...(progressOf.get(token) ?? []));
  }
  console.log(`ok ${name}`);
  return res.structuredContent;
}

const rate = "A Rate Needs Its Denominator to Be Compared";
// The first check reads every note: progress up to all of them, each
// notification above the last, as the protocol asks.
const checked = [];
const check = await call("check", {}, checked);
assert.ok(check.summary.notes > 0 && Array.isArray(check.findings));
assert.ok(checked.length > 0, "check: no progress notification");
for (let i = 1; i < checked.length; i++) assert.ok(checked[i].progress > checked[i - 1].progress, `check: progress ${JSON.stringify(checked)}`);
assert.equal(checked.at(-1).progress, checked.at(-1).total, `check: last progress ${JSON.stringify(checked.at(-1))}`);
console.log(`ok check progress: ${checked.length} notifications, ${checked.at(-1).total} notes`);
const stale = await call("stale", {});
assert.equal(stale.today, "2026-12-02");
const built = [];
const search = await call("search", { query: "denominator", limit: 3 }, built);
assert.ok(search.hits.length > 0, "search found nothing");
assert.ok(built.length > 0 && built.at(-1).progress === built.at(-1).total, `search: the index build's progress ${JSON.stringify(built)}`);
// A query bleve parses and the index cannot run is a bad query, the index
// kept (it was taken for damage and rebuilt at each such query).
async function callRefused(name, args, pattern) {
  const res = await client.callTool({ name, arguments: args });
  const text = res.content.map((c) => c.text).join("\n");
  assert.ok(res.isError, `${name} ${JSON.stringify(args)}: not refused: ${text}`);
  assert.match(text, pattern, `${name} ${JSON.stringify(args)}`);
  console.log(`ok ${name} refused: ${text.split("\n")[0]}`);
}
await callRefused("search", { query: "denominator~3" }, /bad query: denominator~3: a word matches at most 2 edits away/);
await callRefused("search", { query: "/(/" }, /bad query: \/\(\/: error parsing regexp/);
// base reads the vault's .base files only: a path out of it, there or not, is refused alike.
const outside = join(vault, "..", "Outside.base");
writeFileSync(outside, "views:\n  - type: table\n    name: OutsideView\n");
await callRefused("base", { base: outside }, /path is outside the vault$/);
await callRefused("base", { base: "../Missing.base" }, /^\.\.\/Missing\.base: path is outside the vault$/);
const rows = await call("base", { base: "All.base", limit: 2 }, []);
assert.ok(rows.items > 2 && rows.next_offset === 2, `base: ${JSON.stringify(rows)}`);
const links = await call("links", { note: rate });
assert.ok(links.links.some((l) => l.relation === "extends" && l.resolved));
const back = await call("backlinks", { note: rate });
assert.ok(Array.isArray(back.backlinks));
const claim = await call("read_note", { note: rate, section: "Claim" });
assert.match(claim.text, /^## Claim\n/);
const tend = await call("tend", { note: rate });
assert.equal(tend.date, "2026-12-02");
const created = await call("new", { title: "Agents Write Through the Same Path" });
assert.ok(existsSync(join(vault, created.path)), `new: ${created.path} missing`);
const listed = await call("list", { type: ["permanent"], where: ["tend-every"], fields: ["tend-every"] });
assert.ok(listed.notes.length > 0 && listed.notes.every((n) => n.type === "permanent" && n.fields["tend-every"]), "list: no permanent note with tend-every");
const runs = await call("runs", { note: "Unapproved" });
assert.deepEqual(runs.runs, []);
// Nothing's criterion changed since a run: nothing judged again, nothing written.
assert.deepEqual((await call("rejudge", { note: "Unapproved" })).runs, []);
const props = await call("properties", {});
assert.ok(props.properties.some((p) => p.name === "tags"), "properties: no tags");
// Edits and a move, of notes written before this second (a note written
// this moment is taken for one an editor is saving, and left alone).
await call("set_property", { note: "Unapproved", key: "status", value: "draft" });
await call("append_section", { note: "Unapproved", section: "Evidence", text: "- appended by an agent" });
const edited = (await call("read_note", { note: "Unapproved" })).text;
assert.match(edited, /^---\nstatus: draft\n---\n/);
assert.match(edited, /## Evidence\n\n- appended by an agent\n/);
// The notes listed as resources follow a move, and the client is told.
let listChanged = 0;
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { listChanged++; });
const resourceNames = async () => {
  const names = new Set();
  let cursor;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    for (const r of page.resources) names.add(r.name);
    cursor = page.nextCursor;
  } while (cursor);
  return names;
};
await resourceNames();
const plan = await call("move", { from: "Percentiles Cannot Be Averaged Across Hosts", to: "Inbox/" });
assert.ok(plan.dry_run && plan.confirm, "move: no dry run");
const moved = await call("move", { from: "Percentiles Cannot Be Averaged Across Hosts", to: "Inbox/", confirm: plan.confirm });
assert.ok(existsSync(join(vault, moved.moved[0].to)), "move: not moved");
for (const until = Date.now() + 10000; listChanged === 0 && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
assert.ok(listChanged > 0, "move: no notifications/resources/list_changed");
const after = await resourceNames();
assert.ok(after.has(moved.moved[0].to) && !after.has(moved.moved[0].from), "move: the resources list the note where it was");

// The falsifier's command was never approved with zk trust: refused, not run.
const refused = await client.callTool({ name: "run_falsifier", arguments: { note: "Unapproved", falsifier: "1" } });
assert.ok(refused.isError, "an unapproved command ran");
const text = refused.content.map((c) => c.text).join("\n");
assert.match(text, /not approved/);
assert.match(text, /an agent cannot approve/);
assert.ok(!existsSync(join(vault, "ran.txt")), "the unapproved command left ran.txt");
console.log("ok run_falsifier refused");

const { resources } = await client.listResources();
assert.ok(resources.some((r) => r.uri === `zk://note/3.%20Resources/Permanent%20Notes/${encodeURIComponent(rate)}.md`), "no zk://note/ resource for the note");
const read = await client.readResource({ uri: "zk://note/Unapproved.md" });
assert.match(read.contents[0].text, /^# Unapproved$/m);
console.log("ok resources");

await client.close();
console.log("mcp client: all tools answered");
