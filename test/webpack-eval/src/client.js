// A class whose method makes a request: the caller gets the response, not a promise.
import http from 'k6/http';

export class Client {
  constructor(base) {
    this.base = base;
    this.calls = 0;
  }

  get(path) {
    this.calls++;
    return http.get(`${this.base}${path}`);
  }
}
