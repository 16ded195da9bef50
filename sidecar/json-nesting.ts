// How deep a JSON text nests, read in one pass before it is parsed: a body of 64 KiB can nest 30,000 deep, and the
// recursive steps that follow a parse (a schema's validation, the import's check for repeated keys) ran out of stack
// on such input (a RangeError, with a stack trace in the answer or the terminal). Nothing a client or an import file
// means to say nests anywhere near the bounds its callers give.

/** Whether `text`, read as JSON, opens more than `max` arrays or objects inside one another (strings skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
