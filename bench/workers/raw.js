// Cold start, raw postMessage: answers `{ id, method, params }` with `{ id, result }`.
const api = { add: (a, b) => a + b };
self.onmessage = ({ data: { id, method, params } }) => self.postMessage({ id, result: api[method](...params) });
