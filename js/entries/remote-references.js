// `wiggum-rpc/remote` in a build whose module takes references (Cargo
// feature `references`, `scripts/build.sh references`): remote.js's sugar,
// and functions and objects by reference (references.js).

// Named by this path, not "./remote.js", which the package layout keeps as
// an import of the package's own entry (scripts/subpath-entries.mjs).
import { installRemote as installSugar } from "../entries/remote.js";
import { installReferences } from "./references.js";

export { reference, referencesHeld, withOptions } from "./references.js";

/** What remote.js's install adds, and the root's references slot filled. */
export function installRemote(root) {
  installSugar(root);
  installReferences(root.extensions, root.RPCError);
}
