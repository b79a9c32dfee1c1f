/**
 * mulberry32: a small, well-distributed 32-bit generator of floats in [0, 1), for data that must
 * come out the same on every run (the sample events of `timemark start`, the benchmarks' and
 * tests' generated HTTP logs). Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
