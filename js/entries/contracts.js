// `wiggum-rpc/contracts`: a method's params and result checked by Standard
// Schema objects (zod, valibot, arktype, … or a hand-written
// `~standard.validate`) named in its `info`. Here: which handler is
// registered (a method's carries its contract, which the root's `invoke`
// hands back here; a notification's drops what fails), the check itself, and
// how a schema's issues read. The core decides what each verdict puts on the
// wire (`-32602` with the issues, `-32603` for a result that fails its schema).
//
// Importing the entry is what makes schemas in `info` work (the entry's last
// lines, written by the build, call `installContracts` with the root
// entry's `extensions`); without it, such a registration is refused.

let isSchema;

/** Makes schemas in a method's or notification's `info` work on every endpoint of the page. */
export function installContracts({ extensions }) {
  isSchema = extensions.isSchema;
  extensions.wrap = contracted;
  extensions.check = checked;
}

// The handler to register under `name`: `handler` itself when `info` names
// no schema; otherwise, for a method, a function carrying its contract (for
// glue.js's `invoke`), and for a notification, one that drops (and traces)
// params that fail the schema.
function contracted(name, handler, info, notification, hooks) {
  const params = isSchema(info?.params) ? info.params : undefined;
  const result = isSchema(info?.result) ? info.result : undefined;
  if (params === undefined && (result === undefined || notification)) return handler;
  if (!notification) {
    const run = (value, context) => handler(value, context);
    run.check = { name, handler, params, result };
    return run;
  }
  return (value) => {
    let outcome;
    try {
      outcome = params["~standard"].validate(value);
    } catch (error) {
      hooks.observer?.local("schema-error", undefined, name, error);
      return;
    }
    const judged = (verdict) => {
      if (verdict.issues) hooks.observer?.local("invalid-notification", undefined, name, issuesOf(verdict.issues));
      else return handler(verdict.value);
    };
    if (!isThenable(outcome)) return judged(outcome);
    // A schema that never settles holds nothing of the endpoint's.
    outcome.then(judged, (error) => hooks.observer?.local("schema-error", undefined, name, error));
  };
}

// A schema's issues as they travel in `error.data`: `{ message, path? }`
// with the path as plain keys.
function issuesOf(issues) {
  return Array.from(issues, (issue) => {
    const path = issue?.path?.map((segment) => {
      const key = typeof segment === "object" && segment !== null ? segment.key : segment;
      return typeof key === "number" ? key : String(key);
    });
    return path?.length ? { message: String(issue?.message), path } : { message: String(issue?.message) };
  });
}

// A contracted method's call: the params' check, the handler on the check's
// output, the result's check (of the value inside a transfer() marker).
// Resolves with the verdict: `{ result }`, `{ invalidParams: issues }` or
// `{ invalidResult: issues }`. An asynchronous check is announced
// (`ops.checking`, `ops.checked`) so that the endpoint bounds it, and gives
// up when the call is cancelled, given up or destroyed: a schema that never
// settles does not hold the answer. The handler itself decides what a cancel
// means to it.
async function checked(hooks, contract, params, context, { checking, checked: done, Transfer }) {
  const stopped = new Promise((_, reject) => {
    context.signal.addEventListener("abort", () => reject(context.signal.reason), { once: true });
  });
  stopped.catch(() => {});
  const until = (verdict) => (isThenable(verdict) ? Promise.race([verdict, stopped]) : verdict);
  let value = params;
  if (contract.params) {
    let verdict = contract.params["~standard"].validate(params);
    if (isThenable(verdict)) {
      checking();
      verdict = await until(verdict);
      done();
    }
    if (verdict.issues) {
      const issues = issuesOf(verdict.issues);
      hooks.observer?.local("invalid-params", undefined, contract.name, issues);
      return { invalidParams: issues };
    }
    value = verdict.value;
  }
  let result = await contract.handler(value, context);
  if (result === undefined) result = null;
  if (!contract.result) return { result };
  const marked = result instanceof Transfer ? result : undefined;
  const verdict = await until(contract.result["~standard"].validate(marked ? marked.value : result));
  if (verdict.issues) {
    const issues = issuesOf(verdict.issues);
    hooks.observer?.local("invalid-result", undefined, contract.name, issues);
    return { invalidResult: issues };
  }
  return { result: marked ? new Transfer(verdict.value, marked.transfer) : verdict.value };
}

function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function")
    && typeof value.then === "function";
}
