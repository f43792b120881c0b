// A method's contract: its params and result checked by Standard Schema
// objects (zod, valibot, arktype, … or a hand-written `~standard.validate`).
// Here: which handler is registered (a method's carries its contract, which
// glue.js's `invoke` runs; a notification's drops what fails), and how a
// schema's issues read. The core decides what each verdict puts on the wire
// (`-32602` with the issues, `-32603` for a result that fails its schema).

export function isSchema(value) {
  return (typeof value === "object" || typeof value === "function") && value !== null
    && typeof value["~standard"]?.validate === "function";
}

// The handler to register under `name`: `handler` itself when `info` names
// no schema; otherwise, for a method, a function carrying its contract (for
// glue.js's `invoke`), and for a notification, one that drops (and traces)
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
