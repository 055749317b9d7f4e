// What the server's control frames do to an HTTP/2 connection of a run (src/http2/connection.js,
// whose methods these are): SETTINGS (RFC 9113 6.5), WINDOW_UPDATE (6.9), RST_STREAM (6.4) and
// GOAWAY (6.8). Each returns null, or a connection error's reason.

import {
  readU32, SETTINGS_ACK, errorName, MAX_WINDOW, REFUSED_STREAM, FLOW_CONTROL_ERROR,
  SETTINGS_ENABLE_PUSH, SETTINGS_MAX_CONCURRENT_STREAMS, SETTINGS_INITIAL_WINDOW_SIZE, SETTINGS_MAX_FRAME_SIZE,
} from './frames.js';

export const controlFrames = {
  onSettings(buf, start, end) {
    for (let at = start; at < end; at += 6) {
      const id = (buf[at] << 8) | buf[at + 1];
      const value = readU32(buf, at + 2);
      if (id === SETTINGS_MAX_CONCURRENT_STREAMS) this.peerMaxStreams = value;
      else if (id === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) return 'SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1 (FLOW_CONTROL_ERROR)';
        // RFC 9113 6.9.2: the change applies to every open stream's window.
        const delta = value - this.peerWindow;
        for (let k = 0; k < this.depth; k++) if (this.ids[k] !== 0) this.sendWindows[k] += delta;
        this.peerWindow = value;
      } else if (id === SETTINGS_MAX_FRAME_SIZE) {
        if (value < 16384 || value > 16777215) return 'SETTINGS_MAX_FRAME_SIZE out of range';
      } else if (id === SETTINGS_ENABLE_PUSH) {
        if (value > 1) return 'SETTINGS_ENABLE_PUSH not 0 or 1';
      }
      // SETTINGS_HEADER_TABLE_SIZE: our encoder uses no dynamic table. MAX_HEADER_LIST_SIZE:
      // advisory. Unknown settings are ignored (RFC 9113 6.5.2).
    }
    this.socket.write(SETTINGS_ACK);
    if (this.waitingBody > 0) this.pumpBodies();
    // A larger limit may let more streams go: the run asks again after this data().
    this.answered = true;
    return null;
  },

  onWindowUpdate(stream, increment) {
    if (stream === 0) {
      if (increment === 0) return 'WINDOW_UPDATE of 0 on the connection';
      this.connectionWindow += increment;
      if (this.connectionWindow > MAX_WINDOW) return 'the connection window over 2^31-1 (FLOW_CONTROL_ERROR)';
    } else {
      const k = this.slotOf(stream);
      if (k < 0) return null;
      if (increment === 0) return this.streamError(k, 'http2 protocol error: WINDOW_UPDATE of 0');
      this.sendWindows[k] += increment;
      if (this.sendWindows[k] > MAX_WINDOW) return this.streamError(k, 'http2 protocol error: a stream window over 2^31-1', FLOW_CONTROL_ERROR);
    }
    if (this.waitingBody > 0) this.pumpBodies();
    return null;
  },

  onReset(stream, code) {
    const k = this.slotOf(stream);
    if (k < 0) return null;
    // Refused before any processing (RFC 9113 8.7): sent again, not an error.
    if (code === REFUSED_STREAM) this.retry(k);
    else this.failSlot(k, `RST_STREAM ${errorName(code)}`);
    this.answered = true;
    return null;
  },

  onGoaway(last) {
    this.goaway = last;
    // Streams above the last id were not processed: they go again on the next connection.
    for (let k = 0; k < this.depth; k++) if (this.ids[k] > last) this.retry(k);
    this.answered = true;
    return null;
  }
};
