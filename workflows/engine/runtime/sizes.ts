/** UTF-8 sizes without Buffer (absent from the workflow sandbox). */

/** Bytes of a string in UTF-8. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00 && index + 1 < text.length) {
      bytes += 4; // a surrogate pair: one 4-byte character
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** The text cut to at most `maxBytes` UTF-8 bytes, saying how much was cut; unchanged when it fits. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || utf8Length(text) <= maxBytes) return text;
  const total = utf8Length(text);
  const note = ` … [cut: ${total} bytes]`;
  const room = maxBytes - utf8Length(note);
  let kept = '';
  let bytes = 0;
  for (const character of text) {
    const size = utf8Length(character);
    if (bytes + size > room) break;
    kept += character;
    bytes += size;
  }
  return kept + note;
}
