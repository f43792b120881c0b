// `wiggum-rpc/introspection`: `listMethods` and `describeMethods` (in the
// shapes of the duet-rpc story) and `rpc.discover` (an OpenRPC 1.3
// document), all computed from one table of what each method says of itself.
//
// Importing the entry is what makes every server and peer of the page serve
// them, unless made with `introspection: false` (the entry's last lines,
// written by the build, call `installIntrospection` with the root entry's
// `extensions` and `ErrorCode`: it plugs into every endpoint that opens);
// a page that never imports it serves none.

// The root's `ErrorCode` and `isSchema`, given by the install.
let codes;
let isSchema;

/** Makes every server and peer of the page serve the three methods. */
export function installIntrospection({ extensions, ErrorCode }) {
  codes = ErrorCode;
  isSchema = extensions.isSchema;
  extensions.plugins.push({ opened, registered });
}

// Each serving endpoint's catalog, while it lives.
const catalogs = new WeakMap();

function opened(endpoint, options, { serves }) {
  if (!serves || options.introspection === false) return;
  const catalog = introspection(options.openrpc);
  endpoint.method("listMethods", catalog.list);
  endpoint.method("describeMethods", catalog.describe);
  endpoint.method("rpc.discover", catalog.discover);
  catalogs.set(endpoint, catalog);
}

function registered(endpoint, name, info, notification) {
  if (!notification) catalogs.get(endpoint)?.record(name, info);
}

const BUILT_IN = {
  listMethods: { description: "Lists the methods with a description of each", params: [],
    returns: "{name, description}[]" },
  describeMethods: { description: "Lists the methods with their params and return types", params: [],
    returns: "{name, params, returns}[]" },
  "rpc.discover": { description: "Returns the OpenRPC document of this server", params: [],
    returns: "OpenRPC document" },
};

// What each registered method says of itself, in registration order.
// `options` is the endpoint's `openrpc` option: the document's `info`, and a
// converter for schemas that cannot give their own JSON Schema.
function introspection(options) {
  const infos = new Map(Object.entries(BUILT_IN));
  const list = () => [...infos].map(([name, info]) => ({ name, description: info.description ?? "" }));
  const describe = () => [...infos].map(([name, info]) =>
    ({ name, params: paramNames(info, options?.jsonSchema), returns: returnsOf(info) }));
  const discover = () => openrpc(infos, options ?? {});
  return { list, describe, discover, record: (name, info) => infos.set(name, info ?? {}) };
}

// `describeMethods`' params: as given, or the names `rpc.discover` gives a
// method checked by name.
function paramNames(info, convert) {
  if (Array.isArray(info.params)) return info.params;
  const described = isSchema(info.params) ? paramsOf(info, convert) : undefined;
  return described?.paramStructure === "by-name" ? described.params.map(({ name }) => name) : [];
}

function returnsOf(info) {
  if (typeof info.returns === "string") return info.returns;
  return isSchema(info.result) ? `${info.result["~standard"].vendor} schema` : "unknown";
}

// The JSON Schema (draft-07, as OpenRPC 1.x embeds) of a Standard Schema's
// input or output: its own (the Standard JSON Schema interface), else the
// converter's, else undefined.
function jsonSchemaOf(schema, io, convert) {
  if (!isSchema(schema)) return undefined;
  let json;
  try {
    json = schema["~standard"].jsonSchema?.[io]({ target: "draft-07" }) ?? convert?.(schema, io);
  } catch {
    try {
      json = convert?.(schema, io);
    } catch {
      return undefined;
    }
  }
  if (json === null || typeof json !== "object") return undefined;
  const { $schema, ...rest } = json;
  return rest;
}

// Every code an answer of this library can carry on the wire, with the
// message it is known by.
const WIRE_ERRORS = [
  ["PARSE_ERROR", "Parse error"],
  ["INVALID_REQUEST", "Invalid Request"],
  ["METHOD_NOT_FOUND", "Method not found"],
  ["INVALID_PARAMS", "Invalid params"],
  ["INTERNAL_ERROR", "Internal error"],
  ["BUILD_FAILED", "Build failed"],
  ["GATE_FAILED", "Quality gate failed"],
  ["PERMISSION_DENIED", "Permission denied"],
  ["TASK_CANCELLED", "Task cancelled"],
  ["PREVIEW_LOAD_FAILED", "Preview load failed"],
  ["NAVIGATION_FAILED", "Navigation failed"],
  ["MCP_SERVER_ERROR", "MCP server error"],
  ["CONTEXT_OVERFLOW", "Context overflow"],
  ["REQUEST_CANCELLED", "Request cancelled"],
];

const ref = (name) => ({ $ref: `#/components/errors/${name}` });

// The OpenRPC document of the methods in `infos`.
function openrpc(infos, options) {
  const methods = [...infos].map(([name, info]) => {
    const method = { name };
    if (info.description) method.description = info.description;
    Object.assign(method, paramsOf(info, options.jsonSchema));
    method.result = resultOf(info, options.jsonSchema);
    const errors = [ref("INTERNAL_ERROR"), ref("REQUEST_CANCELLED")];
    if (isSchema(info.params)) errors.unshift(ref("INVALID_PARAMS"));
    for (const code of info.errors ?? []) {
      const named = WIRE_ERRORS.find(([key]) => codes[key] === code);
      if (named && !errors.some((error) => error.$ref.endsWith(`/${named[0]}`))) errors.push(ref(named[0]));
    }
    method.errors = errors;
    return method;
  });
  const info = { title: options.title ?? "wiggum-rpc server", version: options.version ?? "1.0.0" };
  if (options.description) info.description = options.description;
  const errors = {};
  for (const [key, message] of WIRE_ERRORS) errors[key] = { code: codes[key], message };
  return { openrpc: "1.3.2", info, methods, components: { errors } };
}

// A method's `params` and `paramStructure`: by name from an object schema,
// by position from a tuple, else one descriptor standing for all of them.
function paramsOf(info, convert) {
  if (Array.isArray(info.params)) {
    return { params: info.params.map((text, at) => descriptor(String(text).split(":")[0].trim() || `arg${at}`, {}, text)),
      paramStructure: "either" };
  }
  if (isSchema(info.params)) {
    const schema = jsonSchemaOf(info.params, "input", convert);
    if (schema?.type === "object" && schema.properties) {
      const required = new Set(schema.required ?? []);
      const params = Object.entries(schema.properties).map(([name, property]) =>
        ({ name, schema: property, required: required.has(name) }));
      return { params, paramStructure: "by-name" };
    }
    const items = schema?.type === "array" && Array.isArray(schema.items) ? schema.items : undefined;
    if (items) return { params: items.map((item, at) => ({ name: `arg${at}`, schema: item, required: true })),
      paramStructure: "by-position" };
    const vendor = info.params["~standard"].vendor;
    return { params: [descriptor("params", schema ?? {}, schema ? undefined : `validated by a ${vendor} schema`)],
      paramStructure: "either" };
  }
  return { params: [descriptor("params", {}, "not described")], paramStructure: "either" };
}

function resultOf(info, convert) {
  if (isSchema(info.result)) {
    const schema = jsonSchemaOf(info.result, "output", convert);
    return descriptor("result", schema ?? {}, schema ? undefined : `validated by a ${info.result["~standard"].vendor} schema`);
  }
  return descriptor("result", {}, typeof info.returns === "string" ? info.returns : undefined);
}

function descriptor(name, schema, description) {
  return description === undefined ? { name, schema } : { name, schema, description };
}
