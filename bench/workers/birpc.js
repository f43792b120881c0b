// Cold start, birpc: the API on the worker's scope.
import { createBirpc } from "birpc";

createBirpc({ add: (a, b) => a + b }, { post: (data) => postMessage(data), on: (handler) => (onmessage = ({ data }) => handler(data)) });
