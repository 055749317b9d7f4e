// An assertion library in the shape k6 projects use (k6chaijs wraps chai this way): expect(value)
// gives a Proxy whose getters chain (to, be, have, and), whose get trap records each property
// asked for and refuses unknown ones, and whose methods record a check; describe() runs a group and
// turns a thrown assertion into a failed check. CommonJS, with prototypes and getters.
var k6 = require('k6')

var asked = { count: 0 }

function Assertion(value, label) {
  this.value = value
  this.label = label || 'value'
  return proxify(this)
}

function proxify(target) {
  return new Proxy(target, {
    get: function (t, key) {
      if (typeof key === 'string') {
        asked.count++
        if (!(key in t)) throw new Error('unknown assertion property: ' + key)
      }
      return Reflect.get(t, key)
    },
  })
}

function chain(name) {
  Object.defineProperty(Assertion.prototype, name, { get: function () { return proxify(this) } })
}
;['to', 'be', 'have', 'and'].forEach(chain)

function record(assertion, ok, what) {
  var name = assertion.label + ' ' + what
  k6.check(null, { [name]: function () { return ok } })
  if (!ok) throw new Error(name)
  return assertion
}

Assertion.prototype.equal = function (expected) {
  return record(this, this.value === expected, 'to equal ' + expected)
}
Assertion.prototype.above = function (n) {
  return record(this, this.value > n, 'to be above ' + n)
}
Assertion.prototype.property = function (name) {
  return record(this, this.value != null && Object.prototype.hasOwnProperty.call(this.value, name), 'to have property ' + name)
}

function expect(value, label) {
  return new Assertion(value, label)
}

function describe(name, fn) {
  return k6.group(name, function () {
    try {
      fn()
      return true
    } catch (err) {
      k6.check(null, { ['exception: ' + err.message]: function () { return false } })
      return false
    }
  })
}

module.exports = { expect: expect, describe: describe, asked: asked }
