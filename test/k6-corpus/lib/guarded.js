// A CommonJS library that guards itself with a `return` at its top level, in the shape of
// jslib's formdata/0.0.2 (`if (exports.FormData) return;`): k6 runs a CommonJS module's body in
// a function, where that return is allowed and ends the body.
if (exports.Multipart) {
  return;
}

exports.Multipart = Multipart;
exports.loaded = (exports.loaded || 0) + 1;

function Multipart() {
  this.boundary = 'b0undary';
  this.parts = [];
}

Multipart.prototype.append = function (name, value) {
  this.parts.push('--' + this.boundary + '\r\nContent-Disposition: form-data; name="' + name + '"\r\n\r\n' + value + '\r\n');
};

Multipart.prototype.body = function () {
  return this.parts.join('') + '--' + this.boundary + '--\r\n';
};
