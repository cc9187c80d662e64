/**
 * Returns the first member name that occurs twice in one object of `json`, which must
 * already be known to be valid JSON (so this scanner can stay simple). Names are compared
 * after unescaping, so `"alg"` and `"\u0061lg"` count as the same member.
 */
export function findDuplicateKey(json: string): string | undefined {
  // One entry per open container: a Set of names for objects, null for arrays.
  const stack: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const char = json[i];
    if (char === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (char === '[') {
      stack.push(null);
      expectKey = false;
    } else if (char === '}' || char === ']') {
      stack.pop();
      expectKey = false;
    } else if (char === ',') {
      expectKey = stack.at(-1) instanceof Set;
    } else if (char === '"') {
      const end = endOfString(json, i);
      const keys = stack.at(-1);
      if (expectKey && keys) {
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    }
  }
  return undefined;
}

/** Index of the closing quote of the string literal opening at `start`. */
function endOfString(json: string, start: number): number {
  for (let i = start + 1; i < json.length; i++) {
    if (json[i] === '\\') i++;
    else if (json[i] === '"') return i;
  }
  return json.length - 1;
}
