// Written without semicolons (standard style): a call on the line after a declaration, a data
// file read into a SharedArray with split and map, a CommonJS helper, an async default function.
import http from 'k6/http'
import { check, group, sleep } from 'k6'
import { SharedArray } from 'k6/data'
import { Counter } from 'k6/metrics'
import helpers from './lib/helpers.js'

const users = new SharedArray('users', function () {
  return open('./data/users.csv').split('\n').slice(1).filter((line) => line).map((line) => {
    const [user, pass] = line.split(',')
    return { user, pass }
  })
})
const logins = new Counter('logins')

export const options = { vus: '2', iterations: '6', thresholds: { checks: ['rate==1'] } }

export default async function () {
  const user = users[__ITER % users.length]
  const base = __ENV.BASE
  await Promise.resolve()
  const name = helpers.login(base, user.user)
  logins.add(name === user.user ? 1 : 0)
  group('browse', () => {
    const res = http.get(`${base}/get?user=${user.user}`)
    check(res, { 'browse 200': (r) => r.status === 200 })
  })
  ;[1, 2].forEach((n) => http.get(`${base}/anything/${n}`))
  sleep(0.01)
}
