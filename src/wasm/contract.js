// A method's contract: its params and result checked by Standard Schema
// objects (zod, valibot, arktype, … or a hand-written `~standard.validate`).
// This runs the schemas; the core decides what each verdict puts on the wire
// (`-32602` with the issues, `-32603` for a result that fails its schema).
// A method registered without schemas never reaches this file.

// What the binding is told through its one callback (boundary.rs, `signal`:
// the build checks that these match).
const RESOLVED = 4;
const REJECTED = 5;
const CHUNK = 6;
const CHECKING = 11;
const CHECKED = 12;
const INVALID_PARAMS = 13;
const INVALID_RESULT = 14;

export function isSchema(value) {
  return (typeof value === "object" || typeof value === "function") && value !== null
    && typeof value["~standard"]?.validate === "function";
}

// The handler to register under `name`: `handler` itself when `info` names
// no schema; otherwise, for a method, a function carrying its contract (for
// `invokeChecked`), and for a notification, one that drops (and traces)
// params that fail the schema.
export function contracted(name, handler, info, notification, hooks) {
  const params = isSchema(info?.params) ? info.params : undefined;
  const result = isSchema(info?.result) ? info.result : undefined;
  if (params === undefined && (result === undefined || notification)) return handler;
  if (!notification) {
    const run = (value, context) => handler(value, context);
    run.contract = { name, handler, params, result };
    return run;
  }
  return (value) => {
    let outcome;
    try {
      outcome = params["~standard"].validate(value);
    } catch (error) {
      hooks.trace?.local("schema-error", undefined, name, error);
      return;
    }
    const judged = (verdict) => {
      if (verdict.issues) hooks.trace?.local("invalid-notification", undefined, name, issuesOf(verdict.issues));
      else return handler(verdict.value);
    };
    if (!isThenable(outcome)) return judged(outcome);
    // A schema that never settles holds nothing of the endpoint's.
    outcome.then(judged, (error) => hooks.trace?.local("schema-error", undefined, name, error));
  };
}

// Runs a contracted method's call `call`: the params' check, the handler on
// the check's output, the result's check (of the value inside a transfer()
// marker, `Transfer`); each verdict goes to the binding through
// `hooks.signal`. Always settles through a signal, never at once.
export function invokeChecked(hooks, contract, params, call, Transfer) {
  const controller = new AbortController();
  const signal = controller.signal;
  hooks.controllers.set(call, controller);
  const context = { signal, emit: (chunk) => hooks.signal(CHUNK, call, chunk) };
  // Rejects when the call is cancelled, given up or destroyed, so that a
  // schema that never settles does not hold the answer.
  const stopped = new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  stopped.catch(() => {});
  const until = (value) => (isThenable(value) ? Promise.race([value, stopped]) : value);
  const run = async () => {
    let value = params;
    if (contract.params) {
      let verdict = contract.params["~standard"].validate(params);
      if (isThenable(verdict)) {
        hooks.signal(CHECKING, call);
        verdict = await until(verdict);
        hooks.signal(CHECKED, call);
      }
      if (verdict.issues) return [INVALID_PARAMS, issuesOf(verdict.issues)];
      value = verdict.value;
    }
    // The handler itself decides what a cancel means to it (its `signal`).
    let result = await contract.handler(value, context);
    if (result === undefined) result = null;
    if (contract.result) {
      const marked = result instanceof Transfer ? result : undefined;
      const verdict = await until(contract.result["~standard"].validate(marked ? marked.value : result));
      if (verdict.issues) {
        hooks.trace?.local("invalid-result", undefined, contract.name, issuesOf(verdict.issues));
        return [INVALID_RESULT];
      }
      result = marked ? new Transfer(verdict.value, marked.transfer) : verdict.value;
    }
    return [RESOLVED, result];
  };
  run().then(
    ([what, value]) => {
      hooks.controllers.delete(call);
      if (what === INVALID_PARAMS) hooks.trace?.local("invalid-params", undefined, contract.name, value);
      hooks.signal(what, call, value);
    },
    (error) => {
      hooks.controllers.delete(call);
      hooks.signal(REJECTED, call, error);
    },
  );
}

// A schema's issues as they travel in `error.data`: `{ message, path? }`
// with the path as plain keys.
export function issuesOf(issues) {
  return Array.from(issues, (issue) => {
    const path = issue?.path?.map((segment) => {
      const key = typeof segment === "object" && segment !== null ? segment.key : segment;
      return typeof key === "number" ? key : String(key);
    });
    return path?.length ? { message: String(issue?.message), path } : { message: String(issue?.message) };
  });
}

function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function")
    && typeof value.then === "function";
}
