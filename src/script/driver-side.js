// What every run-side of a VU's connection driver (client.js for HTTP/1.1, client-h2.js for
// HTTP/2) answers alike: a VU does not fail fast on an unreachable host (each request fails with
// its reason), and a socket gone or dropped is simply gone.

export class DriverSide {
  connectFailed() {}

  socketClosed(conn) {
    conn.socket = null;
  }

  disconnect(socket) {
    if (socket) socket.destroy();
  }
}
