// Where the .wasm's bytes go, by Rust module: a measure to repeat before and
// after a change to the module's shape. It reads twiggy's list of every item
// of a build that kept its function names, and sums the items by the module
// path of their name (wiggum_rpc's own modules two levels deep, as
// `core::endpoint`, `bindings::boundary`; other crates whole), with what
// wasm-opt adds, the data and the module's own sections each
// a row of their own. The `name` section is counted apart: the package ships
// without it, so shares are of the bytes that ship.
//
// The package's build strips names. A build with the same bytes and its
// names kept: the release build (scripts/build.sh's RUSTFLAGS, a target dir
// of its own so the package's build is untouched), then wasm-opt with
// Cargo.toml's flags and --debuginfo:
//
//   D=target/size-study/named && mkdir -p $D
//   RUSTFLAGS=" --cfg wiggum_no_std" cargo build --lib --release --target wasm32-unknown-unknown \
//     --target-dir target/size-study/cargo
//   wasm-opt <the flags of Cargo.toml's [package.metadata.wasm-opt]> --debuginfo \
//     target/size-study/cargo/wasm32-unknown-unknown/release/wiggum_rpc.wasm -o $D/wiggum_rpc_bg.wasm
//   twiggy top -n 100000 --format json $D/wiggum_rpc_bg.wasm > target/size-study/top.json
//   node scripts/size-by-module.mjs target/size-study/top.json [--depth N] [--items]
//
// (twiggy: `cargo install twiggy --locked`, 0.8.0 here.) Without its name
// section that module is the package's .wasm before scripts/glue.mjs
// shortens its export and import names.
//
// --depth N: wiggum_rpc's modules N levels deep (default 2; 3 splits
// core::endpoint into endpoint, endpoint::outgoing, endpoint::session).
// --items: each row's five largest items under it. With no file, reads stdin.
//
// Functions are counted where their name says they live: a method under its
// type's module, a trait impl under its type's (`<Message<V> as Clone>::clone`
// is core::wire's), drop glue under the dropped type's. Generic code of
// another crate instantiated for ours (`alloc::rc::Rc<T>::drop_slow`) counts
// as that crate's, as twiggy names it. Sizes are raw bytes; gzip folds rows
// unevenly (strings and names fold most), so a row's share of the gzip size
// is not its raw share.
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const NAME_SECTION = "name section (not shipped)";
const CRATES = {
  core: "[crate] core (Rust's)",
  alloc: "[crate] alloc",
  __rustc: "[crate] alloc",
};

// Splits `a::b<c::d>::e` at the `::` outside angle brackets.
function segments(path) {
  const out = [];
  let level = 0;
  let start = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === "<") level++;
    else if (c === ">" && path[i - 1] !== "-") level--;
    else if (level === 0 && c === ":" && path[i + 1] === ":") {
      out.push(path.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  out.push(path.slice(start));
  return out;
}

// `T as Trait` → [T, Trait]; [T] when there is no ` as ` outside brackets.
function splitAs(text) {
  let level = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "<") level++;
    else if (c === ">" && text[i - 1] !== "-") level--;
    else if (level === 0 && text.startsWith(" as ", i)) return [text.slice(0, i), text.slice(i + 4)];
  }
  return [text];
}

// The path a function's name says it belongs to, before its module is read.
function owner(name) {
  let path = name.replace(/::h[0-9a-f]{16}$/, "").replace(/\[[0-9a-f]+\]/g, "");
  for (;;) {
    // `<T as Trait>::f` belongs to T (to Trait when T is a primitive); `<T>::f` to T.
    const qualified = /^<(.*)>::[^<>]*$/.exec(path);
    if (qualified) {
      const [self, trait] = splitAs(qualified[1]);
      path = self.includes("::") || trait === undefined ? self : trait;
      continue;
    }
    // Drop glue belongs to the type dropped.
    const drop = /^core::ptr::drop_in_place<(.*)>$/.exec(path);
    if (drop) {
      path = drop[1].replace(/^[&*]\s*(mut\s+)?/, "").replace(/^\((.*)\)$/, "$1");
      continue;
    }
    return path;
  }
}

// The module path of a function's name: its leading lowercase segments (a
// type, an `<impl …>` or a closure ends it); the last is the function's own
// name when nothing ended it.
function modulePath(path) {
  const parts = segments(path);
  const modules = [];
  for (const part of parts) {
    if (!/^[a-z_][a-z0-9_]*$/.test(part)) return modules;
    modules.push(part);
  }
  return modules.slice(0, -1);
}

// One of wiggum_rpc's modules, at most `depth` deep, and no deeper than its
// file: a module inline in a file (src/heap.rs' `wasm`) is its file's.
const SRC = fileURLToPath(new URL("../src/", import.meta.url));
function ownModule(modules, depth) {
  const kept = [];
  for (const module of modules.slice(0, depth)) {
    kept.push(module);
    const dir = SRC + kept.join("/");
    if (!(existsSync(dir) && statSync(dir).isDirectory())) break;
  }
  return kept.join("::") || "wiggum_rpc (crate root)";
}

export function row(name, depth = 2) {
  if (/ subsection$/.test(name) || name === "custom section 'name' headers") return NAME_SECTION;
  if (/^data segment /.test(name)) return "data (strings, constants)";
  if (/^import /.test(name)) return "import section (names, types)";
  if (/^export "/.test(name)) return "export section";
  if (/^type\[\d+\]/.test(name)) return "type section";
  if (/^code\[\d+\]$/.test(name)) return "unnamed (wasm-opt's merged functions)";
  if (/^(table|memory|global|elem)\[\d+\]$/.test(name) || / section headers$/.test(name) || name === "wasm magic bytes") {
    return "module structure (headers, tables, globals)";
  }
  if (/^(memcmp|memcpy|memmove|memset|fmin|fmax|fminf|fmaxf)$/.test(name)) return "[crate] compiler_builtins";
  if (!name.includes("::") && /^[A-Za-z_$][\w$]*$/.test(name)) {
    return "bindings: exported functions (the ABI's exports, bodies inlined)";
  }
  const modules = modulePath(owner(name));
  if (modules[0] === "wiggum_rpc") return ownModule(modules.slice(1), depth);
  if (modules[0] in CRATES) return CRATES[modules[0]];
  if (modules[0]) return `[crate] ${modules[0]}`;
  return `other: ${name}`;
}

function main() {
  const args = process.argv.slice(2);
  const flag = (name) => {
    const at = args.indexOf(name);
    if (at === -1) return undefined;
    const [value] = args.splice(at, name === "--items" ? 1 : 2).slice(1);
    return value ?? true;
  };
  const depth = Number(flag("--depth") ?? 2);
  const showItems = flag("--items") === true;
  if (!Number.isInteger(depth) || depth < 1 || args.length > 1) {
    console.error("usage: node scripts/size-by-module.mjs [twiggy-top.json] [--depth N] [--items]");
    process.exit(2);
  }
  const items = JSON.parse(readFileSync(args[0] ?? 0, "utf8"));
  if (!Array.isArray(items) || !items.every((item) => typeof item.name === "string" && typeof item.shallow_size === "number")) {
    console.error("size-by-module: expected the JSON of `twiggy top -n 100000 --format json`");
    process.exit(2);
  }
  const rows = new Map();
  let named = 0;
  for (const item of items) {
    const key = row(item.name, depth);
    const entry = rows.get(key) ?? { bytes: 0, count: 0, items: [] };
    entry.bytes += item.shallow_size;
    entry.count += 1;
    entry.items.push(item);
    rows.set(key, entry);
    named += item.shallow_size;
  }
  const nameSection = rows.get(NAME_SECTION)?.bytes ?? 0;
  const shipped = named - nameSection;

  const percent = (part, whole) => `${((100 * part) / whole).toFixed(1)}%`;
  const table = [...rows].filter(([key]) => key !== NAME_SECTION).sort((a, b) => b[1].bytes - a[1].bytes);
  const keyWidth = Math.max(...table.map(([key]) => key.length), 20);
  const line = (key, bytes, share, count) =>
    `${key.padEnd(keyWidth)}  ${String(bytes).padStart(7)}  ${share.padStart(6)}  ${String(count).padStart(5)}`;
  console.log(line("module", "bytes", "share", "items"));
  console.log(`${"-".repeat(keyWidth)}  -------  ------  -----`);
  for (const [key, { bytes, count, items: under }] of table) {
    console.log(line(key, bytes, percent(bytes, shipped), count));
    if (showItems) {
      for (const item of under.sort((a, b) => b.shallow_size - a.shallow_size).slice(0, 5)) {
        console.log(`    ${String(item.shallow_size).padStart(6)}  ${item.name.slice(0, 110)}`);
      }
    }
  }
  console.log(`${"-".repeat(keyWidth)}  -------  ------  -----`);
  console.log(line("shipped (all but the name section)", shipped, "100.0%", items.length - (rows.get(NAME_SECTION)?.count ?? 0)));
  console.log(line(NAME_SECTION, nameSection, "", rows.get(NAME_SECTION)?.count ?? 0));
  console.log(line("twiggy's total", named, "", items.length));
}

// Run as a script it prints the table; imported, it gives `row` (the rule
// that puts an item in its row) to a study of its own.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
