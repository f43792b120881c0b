// Introspection: the built-in `listMethods` and
// `describeMethods`, in the shapes of the duet-rpc story.

// What each registered method says of itself, in registration order.
export function introspection() {
  const infos = new Map();
  const list = () => [...infos].map(([name, info]) => ({ name, description: info.description ?? "" }));
  const describe = () => [...infos].map(([name, info]) =>
    ({ name, params: info.params ?? [], returns: info.returns ?? "unknown" }));
  infos.set("listMethods", { description: "Lists the methods with a description of each", returns: "{name, description}[]" });
  infos.set("describeMethods", { description: "Lists the methods with their params and return types",
    returns: "{name, params, returns}[]" });
  return { list, describe, record: (name, info) => infos.set(name, info ?? {}) };
}

