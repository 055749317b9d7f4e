// src/script/vu/: a VU, its iterations, and how its exceptions read.
// A virtual user: a few objects on the one event loop every VU shares. It holds what k6 keeps per
// VU (its id, iteration, cookie jar, connections, group, tags, its own instance of the script's
// modules) and hands the k6 modules what they record (src/script/metrics/run-state.js aggregates it).

import { loadProtobuf } from '../../grpc/protobuf.js';
import { CookieJar } from '../k6/http/cookies.js';
import { OriginClient } from '../net/client.js';
import { loops } from '../eventloop/loops.js';
import { drive, made, isWait, waits } from '../eventloop/wait.js';
import { k6Module, vuMath } from '../k6/k6.js';
import { httpModule } from '../k6/http/http.js';
import { metricsModule } from '../k6/metrics.js';
import { executionModule } from '../k6/execution.js';
import { encodingModule } from '../k6/encoding.js';
import { cryptoModule } from '../k6/crypto/crypto.js';
import { dataModule } from '../k6/data.js';
import { loadHTML, htmlModule } from '../k6/html/html-load.js';
import { dial } from '../k6/http/dialer.js';
import { EventLoop } from '../eventloop/event-loop.js';
import { timersModule } from '../k6/timers.js';
import { secretsModule } from '../k6/secrets.js';
import { scriptConsole } from '../k6/console.js';
import { wantedModules } from '../transform/lazy.js';
import { META } from '../scenarios/system-tags.js';
import { REQUIRE_OUTSIDE_INIT } from '../transform/unresolved.js';
import { thrownGoError } from '../k6/host-error.js';

const MODULES = {
  k6: k6Module,
  'k6/http': httpModule,
  'k6/metrics': metricsModule,
  'k6/execution': executionModule,
  'k6/encoding': encodingModule,
  'k6/crypto': cryptoModule,
  'k6/data': dataModule,
  'k6/timers': timersModule,
  'k6/secrets': secretsModule,
};

// The modules loaded only when a module of the script names them (src/script/transform/lazy.js).
const LAZY = {
  'k6/net/grpc': async (facilities) => {
    await loadProtobuf(facilities.requireProtobuf || null);
    return (await import('../k6/grpc/grpc.js')).grpcModule;
  },
  // Light, but modules a run would load for nothing when no module of its script names them:
  // k6/html's dozen are an eighth of a scripted run's. A module that names k6/html has wanted
  // its libraries (html-lib.js): loadHTML() loads them, and k6/html, once.
  'k6/html': async () => {
    await loadHTML();
    return htmlModule;
  },
  'k6/ws': async () => (await import('../k6/ws/ws.js')).wsModule,
  'k6/websockets': async () => (await import('../k6/ws/websockets.js')).websocketsModule,
  'k6/experimental/websockets': async () => (await import('../k6/ws/websockets.js')).experimentalWebsocketsModule,
  'k6/experimental/fs': async () => (await import('../k6/fs.js')).fsModule,
  'k6/experimental/csv': async () => (await import('../k6/csv.js')).csvModule,
  'k6/experimental/streams': async () => (await import('../k6/streams.js')).streamsModule,
  'k6/browser': async (facilities) => {
    const { browserModuleWith } = await import('../k6/browser/browser.js');
    return browserModuleWith({ ...facilities, browserDevices: await facilities.browser.chromiumDevices() });
  },
};

/** Loads the lazy modules the script may import, before its VUs are made (with the runtime's `facilities`). */
export async function loadModules(facilities = {}) {
  for (const name of wantedModules()) if (MODULES[name] === undefined) MODULES[name] = await LAZY[name](facilities);
}

// The script's console: k6's log lines on stderr (one for every VU; the run's own, which hides
// its secrets, when it has one: src/script/runner.js).
const CONSOLE = scriptConsole();

// The keys of k6's vu and iter metadata in a tags object.
const VU_META = `${META}vu`;
const ITER_META = `${META}iter`;

/**
 * A VU's own __ENV: the run's with `extra` (a scenario's env) over it, frozen as the run's is
 * (k6 v2.2's freeze-env: src/script/runner.js).
 */
export function ownEnv(runEnv, extra = {}) {
  const env = { ...runEnv, ...extra };
  return Object.isFrozen(runEnv) ? Object.freeze(env) : env;
}

/** Thrown into a VU's code when its iteration is cut short (gracefulStop, abort). */
export class Interruption extends Error {}

export class VU {
  constructor(shared, id) {
    this.shared = shared;
    this.id = id;
    this.options = shared.options;
    this.env = ownEnv(shared.env); // __ENV: each VU's own, as in k6 (iteration.js: a scenario's)
    this.envScenario = null;
    this.iter = -1; // __ITER (the getter below): this VU's iterations in its scenario, from 0
    this.pastRun = false; // VU 0 in teardown() and handleSummary() (k6/execution's instance is gone)
    this.clockAt = 0; // the clock as its last iteration ended, for the next in the same turn (iteration.js)
    this.iterationInInstance = -1;
    this.iterationInScenario = -1;
    this.scenarioIteration = -1;
    this.scenario = null;
    this.jar = new CookieJar();
    // http.setResponseCallback(): the VU's own, as in k6, where each VU's init code may set its own.
    this.responseCallback = undefined;
    this.console = shared.console ?? CONSOLE;
    this.math = vuMath(); // the script's Math, whose random is this VU's (randomSeed)
    this.clients = new Map(); // origin → its client; and each k6/net/grpc Client's connection
    // The origin asked for last and its client: most scripts ask for one origin, request after
    // request (a string compare, where the Map hashed it).
    this.lastOrigin = null;
    this.lastClient = null;
    this.groupPath = '';
    this.userTags = {}; // exec.vu.tags (through a Proxy that counts its changes: k6/execution.js)
    this.userMeta = {}; // exec.vu.metrics.metadata, the same way
    this.userTagsVersion = 0;
    // The tags every sample of this VU has now (tags()), made again when one of what makes them
    // changes: the scenario, the group, exec.vu.tags.
    this.baseTags = null;
    this.baseScenario = null;
    this.baseGroup = '';
    this.baseVersion = -1;
    this.baseIter = -1;
    this.iterState = null; // the iteration under way (src/script/vu/iteration.js)
    // What its connections wrote and read since its last iteration's end (RunState.io()).
    this.bytesSent = 0;
    this.bytesReceived = 0;
    this.initDone = false;
    this.interrupted = false;
    this.iterationEnds = undefined; // what a module closes at each iteration's end (k6/browser's contexts)
    this.modules = new Map();
    this.instances = new Map();
    this.required = new Map(); // a CommonJS module of the script → its module object
    this.making = new Map(); // an ES module of the script whose body has yet to run → its exports
    this.loops = loops;
    this.drive = drive; // for the script's functions that may wait (src/script/eventloop/wait.js)
    this.stepper = null; // while an iteration calls its function: its Stepper (wait.js's drive())
    this.isWait = isWait;
    this.made = made;
    this.waits = waits;
    this.exports = null;
    this.timers = new Map(); // a sleep's timer → its resolve
    this.loop = new EventLoop(); // the iteration's timers and the promises it did not wait for
    this.sessions = new Set(); // k6/ws sockets open (src/script/k6/ws/ws.js)
    this.cut = null; // ends the iteration under way, for the run
    // open(path) from a module: relative to that module's folder (`from`: its URL), as in k6.
    this.open = (path, mode, from) => {
      if (this.initDone) throw new Error(`open('${path}'): only in the init context (outside the default function)`);
      return shared.open(path, mode, from);
    };
  }

  /** This VU's instance of a k6 module. */
  module(name) {
    let m = this.modules.get(name);
    if (m === undefined) {
      const make = MODULES[name];
      if (make === undefined) throw new Error(`module ${name} was not loaded (src/script/transform/lazy.js)`);
      m = make(this);
      this.modules.set(name, m);
    }
    return m;
  }

  /** A require that the script's loading could not resolve, called: k6's GoError (src/script/transform/unresolved.js). */
  unresolvable(message) {
    return () => {
      throw thrownGoError(this.initDone ? REQUIRE_OUTSIDE_INIT : message);
    };
  }

  /** This VU's instance of one of the script's own modules (its transformed namespace). */
  async load(namespace) {
    if (namespace.__loadtest_cjs) this.commonJS(namespace);
    // A module imported back by one it imports (a cycle) while it is being made: its exports
    // object, its hoisted functions in it and the rest once its body has run, as ES modules.
    const early = this.making.get(namespace);
    if (early !== undefined) return early;
    let exports = this.instances.get(namespace);
    if (exports === undefined) {
      exports = namespace.default(this, (made) => this.making.set(namespace, made));
      this.instances.set(namespace, exports);
      exports.then(
        () => this.making.delete(namespace),
        () => this.making.delete(namespace),
      );
    }
    return exports;
  }

  /**
   * The names of an ES module's exports object (src/script/transform/transform.js esModule())
   * that its body has yet to set: reading one throws, as a binding not yet made, and setting it
   * makes it a plain property.
   */
  unmade(exports, names) {
    for (const name of names) {
      Object.defineProperty(exports, name, {
        configurable: true,
        enumerable: true,
        get() {
          throw new ReferenceError(`Cannot access '${name}' before initialization`);
        },
        set(value) {
          Object.defineProperty(exports, name, { value, writable: true, enumerable: true, configurable: true });
        },
      });
    }
  }

  /** What `export * from` takes of a module's instance: its names but default. */
  reexported(exports) {
    const out = {};
    for (const k of Object.keys(exports)) if (k !== 'default') out[k] = exports[k];
    return out;
  }

  /**
   * A require of one of the script's own CommonJS modules: its module.exports at once, as
   * CommonJS gives it (what the module's body has set before its first wait, which is all of it
   * unless its top level makes a request). A required ES module's names were made before the
   * requiring module's body (src/script/transform/transform.js), as an import's.
   */
  commonJS(namespace) {
    let module = this.required.get(namespace);
    if (module === undefined) {
      module = { exports: {} };
      this.required.set(namespace, module);
      // `this` at a CommonJS module's top is its exports, as node gives it (UMD bundles read it).
      this.instances.set(namespace, namespace.default.call(module.exports, this, module));
    }
    return module.exports;
  }

  /** This VU's client for the URL's origin: at once when it has one, else a Promise (DNS). */
  clientFor(url, origin = url.origin) {
    if (origin === this.lastOrigin) return this.lastClient;
    const client = this.clients.get(origin);
    if (client === undefined) return this.newClient(url);
    this.lastOrigin = origin;
    this.lastClient = client;
    return client;
  }

  /**
   * Where a connection to `hostname`:`port` goes: through hosts, blockHostnames and blacklistIPs
   * (src/script/k6/http/dialer.js), or the resolver alone. Throws a DialError or ENOTFOUND.
   */
  async dialTo(hostname, port) {
    const dialer = this.shared.dialer;
    return dialer ? dial(dialer, hostname, port, this.shared.resolve) : { address: await this.shared.resolve(hostname), port };
  }

  async newClient(url) {
    const tls = url.protocol === 'https:';
    const port = url.port ? Number(url.port) : tls ? 443 : 80;
    const to = await this.dialTo(url.hostname, port);
    let client = this.clients.get(url.origin);
    if (client === undefined) {
      client = new OriginClient(this.shared.network, { address: to.address, port: to.port, hostname: url.hostname, tls }, 0);
      // noConnectionReuse: a connection for each request, closed after it (k6: Go's DisableKeepAlives).
      client.keepAlive = !this.options.noConnectionReuse;
      this.clients.set(url.origin, client);
    }
    return client;
  }

  assertCanRequest() {
    if (!this.initDone) throw new Error('a request in the init context: make requests in the default function, setup() or teardown()');
    this.assertNotInterrupted();
  }

  assertNotInterrupted() {
    if (this.interrupted) throw this.interruption();
  }

  interruption() {
    return new Interruption('the iteration was interrupted');
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.set(t, resolve);
    });
  }

  /** Ends the VU's sleeps now. */
  wake() {
    for (const [t, resolve] of this.timers) {
      clearTimeout(t);
      resolve();
    }
    this.timers.clear();
  }

  // Cut short (gracefulStop, gracefulRampDown, an abort): the iteration ends now for the run
  // (`cut`), its sleeps end, and whatever of its code still runs throws at its next request. An
  // interrupted VU stays so: the executors take a new one for its place.
  interrupt() {
    this.interrupted = true;
    this.wake();
    this.loop.stop();
    for (const session of [...this.sessions]) session.drop();
    if (this.cut !== null) this.cut();
  }

  /**
   * A new object of this VU's tags now, for a sample that adds its own. (Made afresh: a copy of
   * a made object by spread, then added to, costs V8 a hundred times more.) Of k6's system tags,
   * those of the run (src/script/scenarios/system-tags.js): vu and iter as its metadata.
   */
  tags() {
    const s = this.scenario;
    const st = this.shared.systemTags;
    // Not a spread copy: in node 20's V8 each property added to one makes a new hidden class,
    // some 1 µs each (here, and in every tags object made from this one by adding to it).
    const tags = Object.assign({}, this.shared.globalTags);
    if (s !== null) {
      if (st.scenario) tags.scenario = s.name;
      Object.assign(tags, s.tags);
    }
    if (st.group) tags.group = this.groupPath;
    Object.assign(tags, this.userTags);
    // Its metadata: the script's, then, as k6's, a VU's id in its scenarios' iterations (not
    // in setup() nor teardown()) and its iteration (__ITER, 0 outside one).
    for (const k in this.userMeta) tags[META + k] = this.userMeta[k];
    if (st.vu && s !== null) tags[VU_META] = String(this.id);
    if (st.iter) tags[ITER_META] = String(Math.max(0, this.iter));
    return tags;
  }

  /** This VU's tags now, shared: for samples that add none (never changed by their users). */
  currentTags() {
    if (this.baseTags === null || this.baseScenario !== this.scenario || this.baseGroup !== this.groupPath || this.baseVersion !== this.userTagsVersion || (this.baseIter !== this.iter && this.shared.systemTags.iter)) {
      // Where a sample's tags are written or broken down, the run's set of the same content
      // (every VU with the same tags has the same object: src/script/metrics/tag-sets.js).
      const registry = this.shared.registry;
      const tags = this.tags();
      this.baseTags = registry.out !== null || registry.breakdown !== null ? this.shared.state.tagSets.intern(tags) : tags;
      this.baseScenario = this.scenario;
      this.baseGroup = this.groupPath;
      this.baseVersion = this.userTagsVersion;
      this.baseIter = this.iter;
    }
    return this.baseTags;
  }

  emit(metric, value, extraTags) {
    // Without tags of the call's own, the VU's shared set (no object made a sample).
    const tags = extraTags ? Object.assign(this.tags(), extraTags) : this.currentTags();
    this.shared.registry.add(metric, value, tags);
  }

  emitRequest(timings, status, expected, bytesOut, bytesIn, tags, error, tagsRead) {
    this.bytesSent += bytesOut;
    this.bytesReceived += bytesIn;
    this.shared.state.request(timings, status, expected, bytesIn, tags, error, tagsRead);
  }

  recordCheck(name, ok, extraTags) {
    const state = this.shared.state;
    // The sample's own tags only when something reads them (the common check has no reader).
    const tags = state.registry.readsTags(state.checks) ? this.checkTags(name, extraTags) : this.currentTags();
    state.check(this.groupPath, name, ok, tags);
  }

  // A check's sample's own tags: without the call's, the run's set of the same content.
  checkTags(name, extraTags) {
    const withName = this.shared.systemTags.check;
    if (extraTags) return checkTags(this.tags(), extraTags, withName ? name : null);
    if (!withName) return this.currentTags();
    const sets = this.shared.state.tagSets;
    const base = this.currentTags();
    let tags = sets.check(base, name);
    if (tags === undefined) {
      tags = checkTags(this.tags(), null, name);
      sets.addCheck(base, name, tags);
    }
    return tags;
  }

  enterGroup(path, name) {
    this.shared.state.group(path, name);
    this.groupPath = path;
  }

  emitGroupDuration(path, ms) {
    const tags = this.tags();
    if (this.shared.systemTags.group) tags.group = path;
    this.shared.state.groupDuration(ms, tags);
  }

  warnOnce(message) {
    this.shared.state.warn(message);
  }

  // __ITER, which k6 defines in an iteration only: a ReferenceError in the init code, setup()
  // and teardown(), as there.
  get iteration() {
    if (this.iter < 0) throw new ReferenceError('__ITER is not defined');
    return this.iter;
  }

  close() {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
    this.lastOrigin = null;
    this.lastClient = null;
  }
}

// A check's sample's own tags: the VU's (a new object), the call's, then the check's name
// (null: check is not a system tag of the run).
function checkTags(tags, extraTags, name) {
  if (extraTags) Object.assign(tags, extraTags);
  if (name !== null) tags.check = name;
  return tags;
}
