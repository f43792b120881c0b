// The CPU-bound call of the pool benchmark: `rounds` of arithmetic.
export function work(rounds) {
  let x = 1;
  for (let i = 0; i < rounds; i++) x = (x * 48271 + i) % 2147483647;
  return x;
}
