// A decoded message as k6 gives it to a script: Go's protojson with EmitUnpopulated (k6's
// grpcext marshals every response so, then reads the JSON back). Field names in lowerCamelCase
// (their json_name), 64-bit integers as strings, enums by name, bytes in base64, NaN and the
// infinities as strings; and every field there, at its default when it was not sent: 0, "",
// false, the enum's 0 name, [] and {}, null for a message, but for a oneof's fields (proto3's
// `optional` too), which are there only when set. The well-known types (Timestamp, Duration,
// Struct, the wrappers, Any...) take their own JSON forms, protobufjs's protojson's.

import protobuf from 'protobufjs';
import protojson from 'protobufjs/ext/protojson.js';

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const LONG = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** `message` (a protobufjs Message of `type`) as the plain value k6 would give the script. */
export function messageJSON(type, message) {
  if (type.fullName.startsWith('.google.protobuf.')) return protojson.toJson(type, message);
  const out = {};
  for (const raw of type.fieldsArray) {
    const field = raw.resolve();
    const set = hasOwn(message, field.name) && message[field.name] != null;
    if (field.partOf && !set) continue; // a oneof's field (or proto3 optional) not set
    const key = field.jsonName || field.name;
    const value = message[field.name];
    if (field.map) {
      const o = {};
      if (value) for (const k of Object.keys(value)) o[k] = single(field, value[k]);
      out[key] = o;
    } else if (field.repeated) {
      out[key] = value ? Array.from(value, (v) => single(field, v)) : [];
    } else if (field.resolvedType instanceof protobuf.Type) {
      out[key] = set ? messageJSON(field.resolvedType, value) : null;
    } else {
      out[key] = single(field, value === undefined || value === null ? field.typeDefault : value);
    }
  }
  return out;
}

function single(field, value) {
  const t = field.resolvedType;
  if (t instanceof protobuf.Type) return messageJSON(t, value);
  if (t instanceof protobuf.Enum) {
    if (t.fullName === '.google.protobuf.NullValue') return null;
    const name = t.valuesById[value];
    return name === undefined ? value : name;
  }
  if (LONG.has(field.type)) return value == null ? '0' : String(value);
  switch (field.type) {
    case 'bytes':
      return value == null || value.length === 0 ? '' : protobuf.util.base64.encode(value, 0, value.length);
    case 'float':
      return nonFinite(value) ?? float32(value);
    case 'double':
      return nonFinite(value) ?? value;
    default:
      return value;
  }
}

const nonFinite = (v) => (Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : null);

// Go writes a float32 in the fewest digits that read back as the same float32 (0.1, not
// 0.10000000149011612 as the double it decodes to).
function float32(v) {
  for (let p = 1; p < 10; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return s;
  }
  return v;
}
