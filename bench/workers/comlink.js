// Cold start, comlink: exposes the API on the worker's scope.
import * as Comlink from "comlink";

Comlink.expose({ add: (a, b) => a + b });
