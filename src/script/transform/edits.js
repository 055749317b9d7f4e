// A source edited in place: insertions and replacements, applied in one pass, so that nothing
// is re-printed and every line keeps its number.

/** Insertions and replacements on a source, applied in one pass. */
export class Edits {
  constructor(source) {
    this.source = source;
    this.inserts = []; // [pos, rank, text]: at one position, higher ranks go first
    this.replaces = []; // [start, end, text]
  }
  insert(pos, text, rank) {
    this.inserts.push([pos, rank, text]);
  }
  replace(start, end, text) {
    this.replaces.push([start, end, text]);
  }
  // Removed, its line breaks kept so that every line after it keeps its number.
  blank(start, end) {
    this.replace(start, end, this.source.slice(start, end).replace(/[^\n]/g, ''));
  }
  /**
   * The edited source. `this.spans` then holds where each piece of the source went:
   * [offset in the result, offset in the source, length] (src/script/transform/columns.js reads them).
   */
  apply() {
    const src = this.source;
    const spans = (this.spans = []);
    this.inserts.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    this.replaces.sort((a, b) => a[0] - b[0]);
    let out = '';
    let pos = 0;
    let i = 0;
    let r = 0;
    while (pos <= src.length) {
      while (i < this.inserts.length && this.inserts[i][0] === pos) out += this.inserts[i++][2];
      if (r < this.replaces.length && this.replaces[r][0] === pos) {
        const [, end, text] = this.replaces[r++];
        out += text;
        // Insertions inside a replaced range (none are made) would be lost.
        while (i < this.inserts.length && this.inserts[i][0] < end) i++;
        if (end > pos) {
          pos = end;
          continue;
        }
      }
      const next = Math.min(i < this.inserts.length ? this.inserts[i][0] : Infinity, r < this.replaces.length ? this.replaces[r][0] : Infinity, src.length + 1);
      const to = Math.min(next, src.length);
      if (to > pos) spans.push([out.length, pos, to - pos]);
      out += src.slice(pos, to);
      if (next > src.length) break;
      pos = next;
    }
    return out;
  }
}
