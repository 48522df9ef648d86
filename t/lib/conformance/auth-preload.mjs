// t9600: adds "Authorization: Bearer $MCP_BEARER" to every HTTP request the
// conformance suite sends to $MCP_AUTH_ORIGIN (the suite has no token option).
//   NODE_OPTIONS="--import .../auth-preload.mjs" conformance server --url ...
// Covers fetch()/undici (through the global dispatcher) and node:http.request.
// A request that already carries an Authorization header is left alone.
import { createRequire } from 'node:module';
import http from 'node:http';
import path from 'node:path';

const token = process.env.MCP_BEARER;
const only = process.env.MCP_AUTH_ORIGIN ? new URL(process.env.MCP_AUTH_ORIGIN).origin : null;
const value = `Bearer ${token}`;
const targeted = (origin) => !only || new URL(origin).origin === only;
const hasAuth = (names) => names.some((n) => String(n).toLowerCase() === 'authorization');

// The undici the suite itself uses: next to its main script, else from the cwd.
function undici() {
  for (const from of [process.argv[1], path.join(process.cwd(), 'x.js')]) {
    try { if (from) return createRequire(from)('undici'); } catch { /* next */ }
  }
  throw new Error('auth-preload: cannot load undici');
}

// Header lists come as an object, a flat [name, value, ...] array or an iterable of pairs.
function withAuth(h) {
  if (h == null) return { authorization: value };
  if (Array.isArray(h) || typeof h[Symbol.iterator] === 'function') {
    const flat = [...h].flat();
    return hasAuth(flat.filter((_, i) => i % 2 === 0)) ? flat : [...flat, 'authorization', value];
  }
  return hasAuth(Object.keys(h)) ? h : { ...h, authorization: value };
}

if (token) {
  const u = undici();
  const intercept = (dispatch) => (opts, handler) => {
    const origin = typeof opts.origin === 'string' ? opts.origin : String(opts.origin?.origin ?? opts.origin);
    return targeted(origin) ? dispatch({ ...opts, headers: withAuth(opts.headers) }, handler) : dispatch(opts, handler);
  };
  u.setGlobalDispatcher(new u.Agent().compose(intercept));

  const request = http.request;
  http.request = function (opts, ...rest) {
    if (opts && typeof opts === 'object' && !(opts instanceof URL)) {
      const origin = `http://${opts.hostname ?? opts.host ?? 'localhost'}${opts.port ? `:${opts.port}` : ''}`;
      if (targeted(origin)) opts = { ...opts, headers: withAuth(opts.headers ?? {}) };
    }
    return request.call(this, opts, ...rest);
  };
}
