// BDD-style assertions from a helper library (lib/expect.js: chai's shape, a Proxy with chained
// getters), the requests inside describe() callbacks, one assertion failing on purpose. The
// library counts the properties its Proxy is asked for, into a Counter: k6's count, so nothing
// may ask more than the script and the library do.
import http from 'k6/http'
import { Counter } from 'k6/metrics'
import { describe, expect, asked } from './lib/expect.js'

const proxyGets = new Counter('proxy_gets')

export const options = { iterations: 2, thresholds: { checks: ['rate>0.5'] } }

export default function () {
  const before = asked.count
  describe('items', () => {
    const res = http.get(`${__ENV.BASE}/json`)
    expect(res.status, 'status').to.equal(200)
    expect(res.json(), 'body').to.have.property('slideshow')
  })
  describe('missing', () => {
    const res = http.get(`${__ENV.BASE}/status/404`)
    expect(res.status, 'missing status').to.be.above(400).and.equal(200)
  })
  describe('after the failure', () => {
    expect(http.get(`${__ENV.BASE}/get`).status, 'after').to.equal(200)
  })
  proxyGets.add(asked.count - before)
}
