// k6/encoding: base64 in k6's four alphabets ('std', 'rawstd', 'url', 'rawurl'), strings as UTF-8.

const encoder = new TextEncoder();

function bytesOf(input) {
  if (typeof input === 'string') return encoder.encode(input);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new Error('b64encode takes a string or an ArrayBuffer');
}

export function b64encode(input, encoding = 'std') {
  const bytes = bytesOf(input);
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  let s = btoa(bin);
  if (encoding === 'url' || encoding === 'rawurl') s = s.replace(/\+/g, '-').replace(/\//g, '_');
  if (encoding === 'rawstd' || encoding === 'rawurl') s = s.replace(/=+$/, '');
  return s;
}

export function b64decode(input, encoding = 'std', format) {
  let s = String(input).replace(/-/g, '+').replace(/_/g, '/');
  while (s.length % 4) s += '=';
  let bin;
  try {
    bin = atob(s);
  } catch {
    throw new Error(`b64decode: '${input}' is not base64 (${encoding})`);
  }
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return format === 's' ? new TextDecoder().decode(bytes) : bytes.buffer;
}

export function encodingModule() {
  const api = { b64encode, b64decode };
  return { default: api, ...api };
}
