// A second bundle on the same page (built by another bundler, with its own
// copy of the package): serves on whatever port the page hands it.
import { JSONRPCServer, portTransport } from "wiggum-rpc";

window.serveOn = (port) => {
  const server = new JSONRPCServer(portTransport(port));
  server.method("add", ([a, b]) => a + b);
  server.method("whoAmI", () => "second bundle");
};
window.dispatchEvent(new Event("second-ready"));
