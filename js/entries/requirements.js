// What the root entry refuses until the entry that serves it is imported,
// and which entry that is: an option, by name, and schemas in a method's
// info. The root entry hands this table to the module (js/module/package.js),
// which names no entry itself.
export const requirements = { options: { trace: "trace" }, schemas: "contracts" };
