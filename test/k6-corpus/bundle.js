// A test project as webpack bundles it for k6 (libraryTarget commonjs, k6's modules external):
// a runtime that requires its own modules by number, a small lodash-like utility module inside,
// the options and the default function handed out through exports.
(() => {
  'use strict'
  var __modules = {
    1: (module) => {
      module.exports = require('k6/http')
    },
    2: (module) => {
      module.exports = require('k6')
    },
    3: (module, exports) => {
      function chunk(xs, size) {
        var out = []
        for (var i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size))
        return out
      }
      function sumBy(xs, fn) {
        return xs.reduce(function (a, x) { return a + fn(x) }, 0)
      }
      exports.chunk = chunk
      exports.sumBy = sumBy
    },
    4: (module, exports, __require) => {
      var http = __require(1)
      var k6 = __require(2)
      var _ = __require(3)
      var Client = (function () {
        function Client(base) { this.base = base }
        Client.prototype.get = function (path) { return http.get(this.base + path) }
        Client.prototype.all = function (paths) {
          var self = this
          return _.chunk(paths, 2).map(function (pair) {
            return http.batch(pair.map(function (p) { return self.base + p }))
          })
        }
        return Client
      })()
      exports.options = { vus: 1, iterations: 3, thresholds: { checks: ['rate==1'] } }
      exports.default = function () {
        var client = new Client(__ENV.BASE)
        var r = client.get('/json')
        k6.check(r, { 'json 200': function (x) { return x.status === 200 } })
        var groups = client.all(['/get?p=1', '/get?p=2', '/get?p=3'])
        var statuses = _.sumBy(groups, function (g) { return _.sumBy(g, function (x) { return x.status }) })
        k6.check(statuses, { 'three 200s': function (s) { return s === 600 } })
      }
    },
  }
  var __cache = {}
  function __require(id) {
    var cached = __cache[id]
    if (cached !== undefined) return cached.exports
    var module = (__cache[id] = { exports: {} })
    __modules[id](module, module.exports, __require)
    return module.exports
  }
  var entry = __require(4)
  for (var key in entry) exports[key] = entry[key]
})()
