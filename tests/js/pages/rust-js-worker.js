// A JS worker on the npm package's web build, called by a Rust page.
import { selfTransport } from "/pkg/wiggum_rpc.js";
import { serveJs } from "/rust-js-side.js";

await serveJs(() => selfTransport());
