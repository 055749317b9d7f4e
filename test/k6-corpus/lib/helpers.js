// A CommonJS helper module, as many k6 projects keep theirs.
const http = require('k6/http')
const { check } = require('k6')

function login(base, user) {
  const res = http.post(`${base}/post`, JSON.stringify({ user }), { headers: { 'Content-Type': 'application/json' } })
  check(res, { 'login 200': (r) => r.status === 200 })
  return res.json('json.user')
}

module.exports = { login }
module.exports.version = 'helpers-1'
