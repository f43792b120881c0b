// Cold start in an iframe, birpc: the API to the parent window, then says it listens.
import { createBirpc } from "birpc";

createBirpc({ add: (a, b) => a + b }, {
  post: (data) => parent.postMessage(data, "*"),
  on: (handler) => addEventListener("message", ({ data, source }) => source === parent && handler(data)),
});
parent.postMessage("ready", "*");
