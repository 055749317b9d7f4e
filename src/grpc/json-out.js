// A decoded message as k6 gives it to a script: Go's protojson with EmitUnpopulated (k6's
// grpcext marshals every response so, then reads the JSON back). Field names in lowerCamelCase
// (their json_name), 64-bit integers as strings, enums by name, bytes in base64, NaN and the
// infinities as strings; and every field there, at its default when it was not sent: 0, "",
// false, the enum's 0 name, [] and {}, null for a message, but for a oneof's fields (proto3's
// `optional` too), which are there only when set. The well-known types (Timestamp, Duration,
// Struct, the wrappers, Any...) take their own JSON forms, protobufjs's protojson's.

import { protobuf, protojson } from './protobuf.js';

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const LONG = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** `message` (a protobufjs Message of `type`) as the plain value k6 would give the script. */
export function messageJSON(type, message) {
  const plan = planOf(type);
  if (plan === null) return protojson.toJson(type, message);
  const out = {};
  for (let i = 0; i < plan.length; i++) {
    const { field, name, key, kind } = plan[i];
    const value = message[name];
    const set = value != null && hasOwn(message, name);
    if (field.partOf && !set) continue; // a oneof's field (or proto3 optional) not set
    if (kind === MAP) {
      const o = {};
      if (value) for (const k of Object.keys(value)) o[k] = single(field, value[k]);
      out[key] = o;
    } else if (kind === REPEATED) {
      out[key] = value ? Array.from(value, (v) => single(field, v)) : [];
    } else if (kind === MESSAGE) {
      out[key] = set ? messageJSON(field.resolvedType, value) : null;
    } else {
      out[key] = single(field, value === undefined || value === null ? field.typeDefault : value);
    }
  }
  return out;
}

const MAP = 1;
const REPEATED = 2;
const MESSAGE = 3;
const SINGLE = 4;
const plans = new WeakMap(); // a message type → its fields as messageJSON reads them, or null for a well-known type

// A type's fields resolved once, not at every message (protobufjs's fullName is a getter that
// joins the names up to the root each time it is read).
function planOf(type) {
  let plan = plans.get(type);
  if (plan === undefined) {
    plan = type.fullName.startsWith('.google.protobuf.')
      ? null
      : type.fieldsArray.map((raw) => {
          const field = raw.resolve();
          const kind = field.map ? MAP : field.repeated ? REPEATED : field.resolvedType instanceof protobuf.Type ? MESSAGE : SINGLE;
          return { field, name: field.name, key: field.jsonName || field.name, kind };
        });
    plans.set(type, plan);
  }
  return plan;
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
