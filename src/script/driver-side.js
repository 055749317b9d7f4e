// What every run-side of a VU's connection driver (client.js for HTTP/1.1, client-h2.js for
// HTTP/2) answers alike: a VU does not fail fast on an unreachable host (each request fails with
// its reason), and a socket gone or dropped is simply gone; and what the driver reads of every
// run-side before a request of its own sets it (grpc-channel.js is one too).

export class DriverSide {
  constructor() {
    this.capture = true; // a script reads what came back
    this.fixed = null; // no request built once for every connection: each is the VU's own
    this.fixedShape = null;
    this.open = false;
    this.intendedTime = 0;
    this.stopping = false;
    this.inFlight = 0;
  }

  connectFailed() {}

  socketClosed(conn) {
    conn.socket = null;
  }

  disconnect(socket) {
    if (socket) socket.destroy();
  }
}
