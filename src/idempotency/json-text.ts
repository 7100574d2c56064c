/**
 * What `JSON.stringify` writes for a JSON value (what `JSON.parse` makes: objects, arrays, strings,
 * numbers, booleans, null), character for character, at any depth: it keeps a stack of its own
 * where `JSON.stringify` recurses, and a value nested 40,000 deep overflows the call stack.
 */
export function jsonText(value: unknown): string {
  const out: string[] = [];
  // Either a value still to write, or text (a closing bracket, a comma, a key) to write as it is.
  const stack: ({ value: unknown } | string)[] = [{ value }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const current = item.value;
    if (Array.isArray(current)) {
      out.push('[');
      stack.push(']');
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index] ?? null });
        if (index > 0) stack.push(',');
      }
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current).filter(([, entry]) => entry !== undefined);
      out.push('{');
      stack.push('}');
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, entry] = entries[index] as [string, unknown];
        stack.push({ value: entry });
        stack.push(`${JSON.stringify(key)}:`);
        if (index > 0) stack.push(',');
      }
    } else {
      out.push(JSON.stringify(current) ?? 'null');
    }
  }
  return out.join('');
}
