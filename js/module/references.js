// The module's exports for references, as functions of an endpoint's JS
// state (`extensions.referenceOps`), for the entry that keeps their objects.
// Only a build whose module takes references bundles this file
// (scripts/glue.mjs): the others' glue names none of these exports.

import { F64, destroyedError, ended, put, refusal, run, str, vals, x } from "./abi.js";
import { extensions } from "./extensions.js";
import { E_REFERENCE, M_OFFERS, M_REFS, M_RELEASE, R_STUBS, T_MAX_REFERENCES, T_REFERENCES_HELD, T_REFS, T_RELEASE } from "./numbers.js";

const TWO_32 = 4294967296;

extensions.referenceOps = {
  // The messages of references' a SEND carries, at word `w` (abi.js's
  // `message` reads the one after a prefix, and says where each ends).
  message(w, message) {
    switch (F64[w]) {
      case M_REFS: {
        // The call or result after it carries these `refs` beside its payload.
        const out = message(w + 2);
        out.refs = vals[F64[w + 1]];
        return out;
      }
      case M_OFFERS: {
        // The hello after it offers references.
        const out = message(w + 1);
        out.params.references = true;
        return out;
      }
      case M_RELEASE:
      default: {
        const refs = [];
        for (let i = 0; i < F64[w + 1]; i++) refs.push([F64[w + 2 + 2 * i], F64[w + 3 + 2 * i]]);
        ended(w + 2 + 2 * refs.length);
        return { jsonrpc: "2.0", method: "$/release", params: { refs } };
      }
    }
  },
  // An E_REFERENCE at word `w`, for the entry that keeps references' objects
  // (`extensions.references`): stubs made in the payload of the event after
  // it (its handle's value replaced), a target to run, an export freed, the
  // connection's references dropped. The word after it (undefined: not one).
  carryOut(w, hooks) {
    if (F64[w] !== E_REFERENCE) return undefined;
    const what = F64[w + 2];
    const h = F64[w + 4];
    const out = hooks && extensions.references?.event(hooks, what, F64[w + 3], vals[h],
      what === R_STUBS ? vals[F64[w + 5]] : F64[w + 5], F64[w + 7] < 0 ? undefined : str(F64[w + 6], F64[w + 7]));
    if (what === R_STUBS && h !== 0) vals[h] = out;
    return w + 8;
  },
  // `limits.maxReferences` of the endpoint opened next (0: the default).
  limit: (n) => x.$tell(0, T_MAX_REFERENCES, 0, n),
  // Introduces `n` new targets, export ids `again` once more, the peer's ids `back`: the first new id, or the error.
  export(hooks, n, again, back) {
    const first = x.$export_refs(hooks.endpoint, n, put(again), put(back));
    return first >= 1 ? first : first === -1 ? destroyedError() : refusal(first);
  },
  // The next call, notification or result of this endpoint carries `refs`.
  stage: (hooks, refs) => x.$tell(hooks.endpoint, T_REFS, 0, put(refs)),
  release(hooks, id) {
    if (hooks.retired) return;
    x.$tell(hooks.endpoint, T_RELEASE, id, 1);
    run();
  },
  // [this side's targets the peer holds, the peer's stubs this side holds].
  held(hooks) {
    const n = hooks.retired ? 0 : x.$tell(hooks.endpoint, T_REFERENCES_HELD);
    return [Math.floor(n / TWO_32), n % TWO_32];
  },
};
