// A worker whose boundary is the reference implementation (not wiggum-rpc):
// its server listens from the first line, and never says `$/ready`.
import { JSONRPCServer, selfTransport, serveReference } from "/tests/browser/reference.js";

serveReference(new JSONRPCServer(selfTransport()));
self.postMessage({ referenceWorkerReady: true });
