// llmjson's peers on the benchmark's generated model outputs: each marked correct or wrong on
// each file, with its speed. Run by hand, never in CI.
// SPDX-License-Identifier: MIT
//
// How to run it (from the repository's root):
//
//   cmake -S . -B build-peers -DCMAKE_BUILD_TYPE=Release -DLLMJSON_BUILD_BENCHMARKS=ON \
//     -DLLMJSON_BUILD_TESTS=OFF
//   cmake --build build-peers --target llmjson_write_inputs llmjson
//   mkdir -p /tmp/peers-inputs && build-peers/tests/bench/llmjson_write_inputs /tmp/peers-inputs
//   cd tests/bench/peers && npm ci
//   node peers.mjs /tmp/peers-inputs --llmjson ../../../build-peers/examples/cli/llmjson
//
// Options: --llmjson PATH adds the column of llmjson's command-line tool; --timeout SECONDS
// (default 180) is how long one peer may take on one file. Node 20 or newer; the table goes to
// stdout, one line per peer and file to stderr (with what a wrong answer was).
//
// The writer (tests/bench/write_inputs.cpp) writes NAME.txt, the model output, and beside it
// NAME.expected.json, the answer llmjson extracts (any_key({"orders"}), as tests/bench/bench.cpp
// calls it), or NAME.expected.error when llmjson finds none. Each peer is called the way its user
// calls it, on the whole model output:
//
//   BAML            BamlRuntime.parseLlmResponse, what the generated `b.parse.Fn(text)` calls, on
//                   an inline BAML function whose return type is any JSON value (a recursive
//                   type alias): the one BAML can use for every file (no codegen, no LLM call)
//   BAML, typed     the same with the answer's own class as the return type, as a BAML user
//                   writes it (the class of each generated family; n/a for other files)
//   LangChain       parseJsonMarkdown (@langchain/core; Python's parse_json_markdown is the same)
//   AI SDK          await parsePartialJson(text) (the `ai` package), its `value`
//   partial-json    parse(text)
//   jsonrepair      JSON.parse(jsonrepair(text))
//   llmjson         the command-line tool, `llmjson --keys orders FILE`, with --llmjson only; its
//                   time includes starting the process and reading the file
//
// A result is correct when it deep-equals the expected answer (key order aside), wrong when it is
// another value, nothing when the peer threw or returned undefined or null. Where llmjson finds no
// answer, any value is wrong and nothing is correct. Each peer runs on each file in a process of
// its own (killed after --timeout: "timeout"): once for the verdict, then up to 5 timed runs
// within about 60 s, a run repeating the call until it lasts 50 ms on small inputs. The time is
// the best run's per call, in MB/s of the whole input (1 MB = 10^6 bytes), whatever the verdict.
import { execFileSync, fork } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);

/// BAML source: one function per return type; no client is ever called (parseLlmResponse only
/// parses), but a function must name one.
const bamlSource = `
type JsonValue = string | int | float | bool | null | JsonValue[] | map<string, JsonValue>
class Plan {
  orders string[]
  helm string
  engineering string
  eta_min int
}
class Step {
  step int
  who string
  do_ string @alias("do")
  eta_min int
}
class StepOrders {
  orders Step[]
  notes string
}
class Item {
  id int
  name string
  score float
  tags string[]
  ok bool
  next null
}
function AnyJson(text: string) -> JsonValue {
  client "openai/unused"
  prompt #"{{ text }} {{ ctx.output_format }}"#
}
function PlanOf(text: string) -> Plan {
  client "openai/unused"
  prompt #"{{ text }} {{ ctx.output_format }}"#
}
function StepOrdersOf(text: string) -> StepOrders {
  client "openai/unused"
  prompt #"{{ text }} {{ ctx.output_format }}"#
}
function ItemsOf(text: string) -> Item[] {
  client "openai/unused"
  prompt #"{{ text }} {{ ctx.output_format }}"#
}
`;

/// The BAML function typed for a generated file (its family is the name's first word), and what
/// turns its value back into the answer's JSON: `do` is a BAML keyword, so Step's field is `do_`
/// (`@alias("do")` is the name in the output BAML parses).
const bamlTyped = {
  mixed: { fn: "PlanOf" },
  clean: { fn: "PlanOf" },
  whole: { fn: "ItemsOf" },
  typical: {
    fn: "StepOrdersOf",
    back: (v) =>
      v && Array.isArray(v.orders)
        ? { ...v, orders: v.orders.map(({ do_, ...step }) => ({ ...step, do: do_ })) }
        : v,
  },
};

async function bamlParser(fn, back = (v) => v) {
  const { BamlRuntime, BamlCtxManager } = await import("@boundaryml/baml");
  const runtime = BamlRuntime.fromFiles("baml_src", { "main.baml": bamlSource }, {});
  const ctx = new BamlCtxManager(runtime);
  return (text) =>
    back(runtime.parseLlmResponse(fn, text, false, ctx.cloneContext(), null, null, {}));
}

/// Each peer: `pkg`, the npm package whose version is shown, and `load(name, file)`, which
/// returns the call on one output (sync or async), or nothing when the peer does not apply.
const peers = [
  { name: "BAML", pkg: "@boundaryml/baml", load: () => bamlParser("AnyJson") },
  {
    name: "BAML, typed",
    pkg: "@boundaryml/baml",
    load: (name) => {
      const typed = bamlTyped[name.split("-")[0]];
      return typed ? bamlParser(typed.fn, typed.back) : undefined;
    },
  },
  {
    name: "LangChain",
    pkg: "@langchain/core",
    load: async () => {
      const { parseJsonMarkdown } = await import("@langchain/core/output_parsers");
      return (text) => parseJsonMarkdown(text);
    },
  },
  {
    name: "AI SDK",
    pkg: "ai",
    load: async () => {
      const { parsePartialJson } = await import("ai");
      return async (text) => (await parsePartialJson(text)).value;
    },
  },
  {
    name: "partial-json",
    pkg: "partial-json",
    load: async () => {
      const { parse } = await import("partial-json");
      return (text) => parse(text);
    },
  },
  {
    name: "jsonrepair",
    pkg: "jsonrepair",
    load: async () => {
      const { jsonrepair } = await import("jsonrepair");
      return (text) => JSON.parse(jsonrepair(text));
    },
  },
];

/// llmjson's command-line tool as a peer: its stdout parsed, nothing on a non-zero exit.
function llmjsonPeer(cli) {
  return {
    name: "llmjson",
    load: (_name, file) => () => {
      let out;
      try {
        out = execFileSync(cli, ["--keys", "orders", file], {
          maxBuffer: 1 << 30,
          stdio: ["ignore", "pipe", "ignore"],
        });
      } catch {
        return undefined;
      }
      return JSON.parse(out);
    },
  };
}

/// The value with every object's keys sorted, as JSON text: equal texts, equal values.
function canonical(v) {
  const sort = (x) => {
    if (Array.isArray(x)) return x.map(sort);
    if (x && typeof x === "object") {
      const o = Object.create(null);  // a key "__proto__" stays a key
      for (const k of Object.keys(x).sort()) o[k] = sort(x[k]);
      return o;
    }
    return x;
  };
  return JSON.stringify(sort(v));
}

const budgetMs = 60_000;
const runMs = 50;
let killAfterMs = 180_000;

/// In the child: runs one peer on one file, reports { verdict, ms, runs } or { skip }.
async function child(peerName, dir, name, cli) {
  const peer = peerName === "llmjson" ? llmjsonPeer(cli) : peers.find((p) => p.name === peerName);
  const file = join(dir, name + ".txt");
  const text = readFileSync(file, "utf8");
  const call = await peer.load(name, file);
  if (!call) return { skip: true };
  const expectedFile = join(dir, name + ".expected.json");
  const expected = existsSync(expectedFile)
    ? canonical(JSON.parse(readFileSync(expectedFile, "utf8")))
    : undefined;
  const error = expected === undefined
    ? readFileSync(join(dir, name + ".expected.error"), "utf8").trim()
    : undefined;
  const once = async () => {
    try {
      return await call(text);
    } catch {
      return undefined;
    }
  };
  // The first call gives the verdict (and, on large inputs, the first timed run).
  const start = performance.now();
  const value = await once();
  const first = performance.now() - start;
  const got = value === undefined || value === null ? undefined : canonical(value);
  let verdict;
  if (error !== undefined)
    verdict = got === undefined ? "correct (no answer)" : `wrong (llmjson reports: ${error})`;
  else verdict = got === undefined ? "nothing" : got === expected ? "correct" : "wrong";
  // Calibration: calls per run grow until a run lasts runMs; that run is the first timed one.
  let calls = 1;
  let ms = first;
  while (ms < runMs && calls < 1_000_000) {
    const grow = Math.min(10, (1.2 * runMs) / Math.max(ms, 1e-3));
    calls = Math.min(1_000_000, Math.ceil(calls * grow));
    const t0 = performance.now();
    for (let i = 0; i < calls; ++i) await once();
    ms = performance.now() - t0;
  }
  let best = ms / calls;
  let runs = 1;
  while (runs < 5 && performance.now() - start + best * calls < budgetMs) {
    const t0 = performance.now();
    for (let i = 0; i < calls; ++i) await once();
    best = Math.min(best, (performance.now() - t0) / calls);
    ++runs;
  }
  // What a wrong answer was, for the log.
  const shown = verdict.startsWith("wrong") ? got.slice(0, 100) : undefined;
  return { verdict, ms: best, runs, calls, shown };
}

/// In the parent: runs `peer` on `name` in a child process, killed after killAfterMs
/// (--timeout).
function runChild(peerName, dir, name, cli) {
  return new Promise((done) => {
    const args = ["--child", peerName, dir, name, cli ?? ""];
    const p = fork(self, args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let result;
    const timer = setTimeout(() => {
      result = { verdict: `timeout (> ${killAfterMs / 1000} s)` };
      p.kill("SIGKILL");
    }, killAfterMs);
    p.on("message", (m) => (result ??= m));
    p.on("exit", (code, signal) => {
      clearTimeout(timer);
      done(result ?? { verdict: `crashed (${signal ?? "exit " + code})` });
    });
  });
}

const plural = (n, what) => `${n} ${what}${n === 1 ? "" : "s"}`;

function speed(bytes, ms) {
  const mbs = bytes / (ms / 1000) / 1e6;
  if (mbs >= 1e6) return `${(mbs / 1e6).toPrecision(3)} TB/s`;
  if (mbs >= 1000) return `${(mbs / 1000).toPrecision(3)} GB/s`;
  if (mbs >= 1) return `${mbs.toPrecision(3)} MB/s`;
  return `${(mbs * 1000).toPrecision(3)} KB/s`;
}

/// The installed version (not every package exports its package.json).
function version(pkg) {
  const file = join(dirname(self), "node_modules", pkg, "package.json");
  return JSON.parse(readFileSync(file, "utf8")).version;
}

async function main(argv) {
  if (argv[0] === "--child") {
    const [, peer, dir, name, cli] = argv;
    process.send(await child(peer, dir, name, cli || undefined));
    return;
  }
  let cli;
  let dir;
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === "--llmjson" && i + 1 < argv.length) cli = resolve(argv[++i]);
    else if (argv[i] === "--timeout" && Number(argv[i + 1]) > 0) killAfterMs = argv[++i] * 1000;
    else if (!dir && !argv[i].startsWith("--")) dir = argv[i];
    else {
      dir = undefined;
      break;
    }
  }
  if (!dir) {
    console.error("usage: node peers.mjs DIR [--llmjson PATH/TO/llmjson] [--timeout SECONDS]");
    process.exit(2);
  }
  const names = readdirSync(dir)
    .filter((f) => f.endsWith(".txt"))
    .map((f) => basename(f, ".txt"))
    .sort();
  const columns = [...peers.map((p) => p.name), ...(cli ? ["llmjson"] : [])];

  console.log(`node ${process.version}`);
  for (const pkg of [...new Set(peers.map((p) => p.pkg))]) console.log(`${pkg} ${version(pkg)}`);
  if (cli) console.log(`llmjson ${execFileSync(cli, ["--version"]).toString().trim()} (${cli})`);
  console.log("");

  const rows = [];
  for (const name of names) {
    const bytes = readFileSync(join(dir, name + ".txt")).length;
    const cells = [];
    for (const peer of columns) {
      const r = await runChild(peer, resolve(dir), name, cli);
      let cell = r.verdict;
      if (r.skip) cell = "n/a";
      else if (r.ms !== undefined) cell += `, ${speed(bytes, r.ms)}`;
      let log = `${name} / ${peer}: ${cell}`;
      if (r.runs) log += ` (best of ${plural(r.runs, "run")} of ${plural(r.calls, "call")})`;
      if (r.shown) log += `: ${r.shown}${r.shown.length === 100 ? "..." : ""}`;
      console.error(log);
      cells.push(cell);
    }
    rows.push(`| ${name} | ${cells.join(" | ")} |`);
  }
  console.log("");
  console.log(`| file | ${columns.join(" | ")} |`);
  console.log(`|---|${columns.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(row);
}

await main(process.argv.slice(2));
