// The order in which the benchmark takes its variants, one round at a time.

/**
 * The variants' order in one round (a slice of calls, a cold start): a
 * shuffle, seeded so that every run takes the same orders. A rotation kept
 * each variant behind the same other one, so whatever that one left for the
 * browser to do (a 1 MB payload's clones to free) fell in the same
 * variant's rounds every time.
 */
export function order(count, seed) {
  const indices = Array.from({ length: count }, (_, i) => i);
  let state = seed * 0x9e3779b1 + 1;
  for (let i = count - 1; i > 0; i--) {
    state = Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5;
    const j = (state >>> 0) % (i + 1);
    [indices[i], indices[j]] = [indices[j], indices[i]];
  }
  return indices;
}
