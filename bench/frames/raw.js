// Cold start in an iframe, raw postMessage: answers `{ id, method, params }`
// with `{ id, result }`, and says when it listens (a window's messages are
// not queued for a listener to come).
const api = { add: (a, b) => a + b };
addEventListener("message", ({ data: { id, method, params }, source }) => {
  if (source === parent) parent.postMessage({ id, result: api[method](...params) }, "*");
});
parent.postMessage("ready", "*");
