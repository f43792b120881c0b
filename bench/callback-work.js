// What each worker of the callback-by-reference measure does with the page's
// callback: `calls` calls of it, `width` of them in flight at once (1: each
// awaited before the next), every answer checked.
export async function callBack(call, calls, width) {
  let next = 0;
  const lane = async () => {
    while (next < calls) {
      const i = next++;
      if ((await call(i)) !== i + 1) throw new Error("wrong result");
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, calls) }, lane));
  return calls;
}
