// k6's event loop: an iteration ends when its timers and the requests it did not wait for have
// (setTimeout and setInterval as globals and from k6/timers, clearTimeout, clearInterval,
// http.asyncRequest left running), and a timer's callback that throws is the iteration's
// exception.
import http from 'k6/http'
import { check } from 'k6'
import { setTimeout as later } from 'k6/timers'
import { Counter } from 'k6/metrics'

const ticks = new Counter('ticks')

export const options = { scenarios: { each: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } } }

export default function () {
  const base = __ENV.BASE
  if (__ITER === 1) {
    // Two timers due at once run in the order they were set: the one that throws ends the
    // iteration, and the next never runs.
    setTimeout(() => { throw new Error('a timer threw') }, 10)
    setTimeout(() => http.get(`${base}/anything/never`), 10)
    return
  }
  // The interval's check comes after the async one's, however slow the server: a summary lists
  // the checks in the order they first came (a loaded machine once answered the async request
  // after the interval's).
  let n = 0
  let asyncChecked = false
  const id = setInterval(() => {
    n++
    if (n <= 3) ticks.add(1)
    if (n >= 3 && asyncChecked) {
      clearInterval(id)
      check(http.get(`${base}/anything/interval`), { 'interval 200': (r) => r.status === 200 })
    }
  }, 10)
  later(() => http.get(`${base}/anything/timeout`), 30)
  clearTimeout(setTimeout(() => http.get(`${base}/anything/cancelled`), 5))
  http.asyncRequest('GET', `${base}/anything/async`).then((r) => {
    check(r, { 'async 200': (x) => x.status === 200 })
    asyncChecked = true
  })
}
