// k6/experimental/fs: open(path) in the init context gives a File of the VU's own (its own
// position), over bytes read once for every VU: stat(), read(buffer), seek(offset, whence).

export const SeekMode = Object.freeze({ Start: 0, Current: 1, End: 2 });

export class File {
  #bytes;
  #at = 0;
  constructor(path, bytes) {
    this.path = path;
    this.#bytes = bytes;
  }
  /** The bytes from the position to the end, the position then at the end (k6/experimental/csv reads the file as a stream). */
  take() {
    const rest = this.#bytes.subarray(this.#at);
    this.#at = this.#bytes.length;
    return rest;
  }
  async stat() {
    return { name: this.path.slice(this.path.lastIndexOf('/') + 1), size: this.#bytes.length };
  }
  // As k6's: the count of bytes read into `buffer`, null at the end of the file.
  async read(buffer) {
    if (!(buffer instanceof Uint8Array)) throw new TypeError('read() takes a Uint8Array');
    if (this.#at >= this.#bytes.length) return null;
    const n = Math.min(buffer.length, this.#bytes.length - this.#at);
    buffer.set(this.#bytes.subarray(this.#at, this.#at + n));
    this.#at += n;
    return n;
  }
  async seek(offset, whence = SeekMode.Start) {
    const base = whence === SeekMode.Start ? 0 : whence === SeekMode.Current ? this.#at : whence === SeekMode.End ? this.#bytes.length : NaN;
    const to = base + Number(offset);
    if (!Number.isInteger(to) || to < 0) throw new Error(`seek(${offset}, ${whence}): not a position in the file`);
    this.#at = to;
    return to;
  }
}

export function fsModule(vu) {
  const api = {
    SeekMode,
    async open(path) {
      if (vu.initDone) throw new Error('open() failed; reason: opening a file is only allowed in the init context');
      const data = vu.shared.open(String(path), 'b');
      return new File(String(path), new Uint8Array(data));
    },
  };
  return { default: api, ...api };
}
