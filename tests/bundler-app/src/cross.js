// A page built by one bundler calling a worker built by another, each with
// its own copy of the package and its own wasm instance: they meet only
// through messages. The worker is a classic script at a fixed URL, built
// separately (the test serves it at /other/worker.js).
import { callWorker } from "./calls.js";

window.result = await callWorker(new Worker("/other/worker.js"));
