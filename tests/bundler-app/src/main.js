// A page as a bundler user writes it: `import … from "wiggum-rpc"`, a worker
// the bundler builds beside it, the outcome in `window.result` for the test.
import { callWorker } from "./calls.js";

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
window.result = await callWorker(worker);
