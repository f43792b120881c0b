// The message inspector and the numbers panel: every JSON-RPC message an
// endpoint's `trace` hook reports becomes a row (batches as their members),
// as does each event of the endpoint's own (a timeout, a schema's verdict);
// requests are paired with their responses to measure latency per boundary.

const MAX_ROWS = 2000;

// How each boundary's far side is named in the direction column.
const PEERS = { preview: "iframe", build: "worker", ralph: "ralph", mcp: "MCP server", server: "server", sw: "service worker" };

function classify(entry) {
  if (entry === null || typeof entry !== "object") return "invalid";
  if (typeof entry.method === "string") return entry.id === undefined ? "notification" : "request";
  if ("result" in entry || "error" in entry) return "response";
  return "invalid";
}

// A one-line preview of params or a result. Binary payloads are shown by size:
// their bytes are the point of a transfer list, not something to read.
function summarize(value) {
  if (value === undefined) return "";
  let text;
  try {
    text = JSON.stringify(value, (key, item) => {
      if (ArrayBuffer.isView(item)) return `‹${item.constructor.name} ${item.byteLength} B›`;
      if (item instanceof ArrayBuffer) return `‹ArrayBuffer ${item.byteLength} B›`;
      return item;
    });
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function formatMs(ms) {
  if (ms === undefined) return "";
  return ms < 100 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

// Nearest-rank percentile of an ascending array.
function percentile(sorted, p) {
  if (!sorted.length) return undefined;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

function cell(className, text) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = text;
  return span;
}

export class Inspector {
  constructor({ boundaries, errorCodes, list, count, filter, pause, clear, stats }) {
    this.boundaries = boundaries;
    this.codeNames = new Map(Object.entries(errorCodes).map(([name, code]) => [code, name]));
    this.list = list;
    this.count = count;
    this.statsTable = stats;
    this.seen = 0;
    this.notShown = 0;
    this.batches = 0;
    this.paused = false;
    this.statsScheduled = false;
    this.started = performance.now();
    // Requests waiting for their response, by boundary, direction and id:
    // both sides of a peer number their calls from the same start.
    this.waiting = new Map();
    this.stats = new Map(boundaries.map((name) => [name, { calls: 0, notifications: 0, errors: 0, latencies: [] }]));

    filter.addEventListener("change", () => (list.dataset.filter = filter.value));
    pause.addEventListener("click", () => {
      this.paused = !this.paused;
      pause.textContent = this.paused ? "resume" : "pause";
      pause.setAttribute("aria-pressed", String(this.paused));
      if (!this.paused) this.notShown = 0;
      this.renderCount();
    });
    clear.addEventListener("click", () => {
      list.replaceChildren();
      this.notShown = 0;
      this.renderCount();
    });
    this.renderCount();
    this.renderStats();
  }

  /** The `trace` option of the endpoint at `boundary`. */
  trace(boundary) {
    return (traced) => {
      if (traced.direction === undefined) {
        this.event(boundary, traced);
      } else {
        // Members of a batch cross together, one after the other.
        const { batch } = traced;
        if (batch?.index === 0) this.batches++;
        this.record(boundary, traced.direction, traced.message, traced.time, batch && { id: this.batches, ...batch });
      }
      this.scheduleStats();
    };
  }

  // Something that happened on the endpoint's side only.
  event(boundary, { event, time, id, method, detail }) {
    // A call of this side that ended here (a timeout, a destroy) waits no more.
    if (id !== undefined) this.waiting.delete(this.key(boundary, "out", id));
    if (this.paused) {
      this.notShown++;
      return;
    }
    const item = document.createElement("li");
    Object.assign(item.dataset, { boundary, kind: "event", event });
    if (method !== undefined) item.dataset.method = method;
    item.classList.add("error");
    const what = `${event} ${method ?? ""} ${id === undefined ? "" : `#${id}`}`;
    item.append(
      cell("seq", ""),
      cell("time", `${((time - this.started) / 1000).toFixed(3)} s`),
      cell("dir", `at page (${boundary})`),
      cell("kind", "event"),
      cell("what", what.trim()),
      cell("latency", ""),
      cell("batch", ""),
      cell("detail", summarize(detail)),
    );
    this.append(item);
  }

  record(boundary, direction, entry, at, batch) {
    const kind = classify(entry);
    const stats = this.stats.get(boundary);
    const row = { boundary, direction, kind, at, batch, seq: ++this.seen, entry };
    if (kind === "request") {
      stats.calls++;
      this.waiting.set(this.key(boundary, direction, entry.id), { at, method: entry.method });
    } else if (kind === "notification") {
      stats.notifications++;
    } else if (kind === "response") {
      const request = this.key(boundary, direction === "out" ? "in" : "out", entry.id);
      const call = this.waiting.get(request);
      if (call) {
        this.waiting.delete(request);
        row.latency = at - call.at;
        row.answers = call.method;
        stats.latencies.push(row.latency);
      }
      if ("error" in entry) stats.errors++;
    }
    if (this.paused) this.notShown++;
    else this.addRow(row);
    this.renderCount();
  }

  key(boundary, direction, id) {
    return `${boundary} ${direction} ${JSON.stringify(id)}`;
  }

  addRow({ boundary, direction, kind, at, batch, seq, entry, latency, answers }) {
    const item = document.createElement("li");
    const error = kind === "response" && "error" in entry ? entry.error : null;
    Object.assign(item.dataset, { boundary, dir: direction, kind });
    if (entry?.method !== undefined) item.dataset.method = entry.method;
    if (entry?.id !== undefined) item.dataset.id = JSON.stringify(entry.id);
    if (answers !== undefined) item.dataset.answers = answers;
    if (latency !== undefined) item.dataset.latency = latency.toFixed(3);
    if (error) item.dataset.code = String(error.code);
    if (batch) {
      item.dataset.batch = String(batch.id);
      item.classList.add("in-batch", batch.index === 0 ? "batch-first" : batch.index === batch.size - 1 ? "batch-last" : "batch-middle");
    }
    if (error || kind === "invalid") item.classList.add("error");

    const peer = PEERS[boundary] ?? boundary;
    const id = entry?.id === undefined ? "" : `#${JSON.stringify(entry.id)}`;
    let what;
    let detail;
    if (kind === "request" || kind === "notification") {
      what = `${entry.method} ${id}`;
      detail = summarize(entry.params);
    } else if (kind === "response") {
      what = `${id} ${answers ?? "?"}`;
      detail = error
        ? `${error.code} ${this.codeNames.get(error.code) ?? ""} ${error.message}${error.data === undefined ? "" : ` ${summarize(error.data)}`}`
        : summarize(entry.result);
    } else {
      what = "not JSON-RPC";
      detail = summarize(entry);
    }
    item.append(
      cell("seq", String(seq)),
      cell("time", `${((at - this.started) / 1000).toFixed(3)} s`),
      cell("dir", direction === "out" ? `page → ${peer}` : `${peer} → page`),
      cell("kind", error ? "error" : kind === "response" ? "result" : kind === "notification" ? "notify" : kind),
      cell("what", what.trim()),
      cell("latency", formatMs(latency)),
      cell("batch", batch ? `batch ${batch.index + 1}/${batch.size}` : ""),
      cell("detail", detail),
    );
    item.title = detail;
    this.append(item);
  }

  append(item) {
    const list = this.list;
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
    list.append(item);
    if (list.childElementCount > MAX_ROWS) list.firstElementChild.remove();
    // Follow new rows only when the reader has not scrolled up to look at old ones.
    if (atBottom) list.scrollTop = list.scrollHeight;
  }

  renderCount() {
    const total = `${this.seen} message${this.seen === 1 ? "" : "s"}`;
    this.count.textContent = this.paused ? `${total} · paused, ${this.notShown} not shown` : total;
  }

  scheduleStats() {
    if (this.statsScheduled) return;
    this.statsScheduled = true;
    queueMicrotask(() => {
      this.statsScheduled = false;
      this.renderStats();
    });
  }

  inFlight(boundary) {
    let count = 0;
    for (const key of this.waiting.keys()) if (key.startsWith(`${boundary} `)) count++;
    return count;
  }

  renderStats() {
    const rows = this.boundaries.map((name) => {
      const { calls, notifications, errors, latencies } = this.stats.get(name);
      return { name, calls, notifications, errors, latencies, inFlight: this.inFlight(name) };
    });
    const all = {
      name: "all",
      calls: rows.reduce((sum, row) => sum + row.calls, 0),
      notifications: rows.reduce((sum, row) => sum + row.notifications, 0),
      errors: rows.reduce((sum, row) => sum + row.errors, 0),
      latencies: rows.flatMap((row) => row.latencies),
      inFlight: this.waiting.size,
    };
    const body = this.statsTable.tBodies[0];
    body.replaceChildren(
      ...[...rows, all].map(({ name, calls, notifications, errors, latencies, inFlight }) => {
        const sorted = [...latencies].sort((a, b) => a - b);
        const tr = document.createElement("tr");
        tr.dataset.boundary = name;
        const values = [name, calls, notifications, errors, formatMs(percentile(sorted, 50)) || "–", formatMs(percentile(sorted, 99)) || "–", inFlight];
        const keys = ["name", "calls", "notifications", "errors", "p50", "p99", "inflight"];
        values.forEach((value, index) => {
          const td = document.createElement(index === 0 ? "th" : "td");
          td.dataset.stat = keys[index];
          td.textContent = String(value);
          if (keys[index] === "inflight" && inFlight > 0) td.className = "busy";
          tr.append(td);
        });
        return tr;
      }),
    );
  }
}
