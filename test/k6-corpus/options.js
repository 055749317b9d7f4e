// k6's network options as a script sets them: hosts maps a name to the server, a blocked host's
// request fails with k6's code (and counts, as k6 counts it), a batch of three to one host with
// batchPerHost, no connection reuse, the jar kept between iterations, a short minimum iteration.
import http from 'k6/http'
import { check } from 'k6'

const port = __ENV.BASE.split(':').pop()

export const options = {
  iterations: 4,
  vus: 2,
  hosts: { 'httpbin.test': '127.0.0.1' },
  blockHostnames: ['*.blocked.test'],
  noConnectionReuse: true,
  noCookiesReset: true,
  batchPerHost: 2,
  minIterationDuration: '10ms',
  thresholds: { checks: ['rate==1'] },
}

export default function () {
  const base = `http://httpbin.test:${port}`
  const r = http.get(`${base}/get`)
  check(r, { 'mapped 200': (x) => x.status === 200, 'status text': (x) => x.status_text === '200 OK' })
  const blocked = http.get('http://api.blocked.test/get')
  check(blocked, { 'blocked 1111': (x) => x.status === 0 && x.error_code === 1111 && x.error === 'hostname is blocked' })
  const rs = http.batch([`${base}/get?a=1`, `${base}/get?a=2`, `${base}/anything/3`])
  check(rs, { 'batch 200': (xs) => xs.every((x) => x.status === 200) })
}
