// k6's randomSeed(n) (internal/js/modules/k6/k6.go): the VU's Math.random becomes Go's
// rand.New(rand.NewSource(n)).Float64 (src/script/k6/go-rand.js), n the int64 Sobek makes of
// what the script gives. Each VU's own, as each k6 VU is a runtime of its own, and unseeded as
// the VU's init code ends (k6's bundle.go), as teardown() and handleSummary() are (each runs on
// a new VU in k6). The expected values are what k6 v2.2.0 printed for the same scripts; the
// far draws of goFloat64 are Go's math/rand's (go1.19.8).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptLogged, startScript } from './servers.js';
import { goFloat64 } from '../src/script/k6/go-rand.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const K6_DRAWS = [
  [0, [
    0.9451961492941164, 0.24496508529377975, 0.6559562651954052, 0.05434383959970039,
    0.36758720663245853, 0.2894804331565928, 0.19243860967493215, 0.6553321508148324,
    0.897169713149801, 0.16735444255905835, 0.2885856518054551, 0.9026048462705047,
    0.8497802817628735, 0.2730468047134829, 0.6090801919903561, 0.25365600644283687,
    0.7746542391859803, 0.017480762156647272, 0.7870739563039942, 0.7993936979594545,
  ]],
  [1, [
    0.6046602879796196, 0.9405090880450124, 0.6645600532184904, 0.4377141871869802,
    0.4246374970712657, 0.6868230728671094, 0.06563701921747622, 0.15651925473279124,
    0.09696951891448456, 0.30091186058528707, 0.5152126285020654, 0.8136399609900968,
    0.21426387258237492, 0.380657189299686, 0.31805817433032985, 0.4688898449024232,
    0.28303415118044517, 0.29310185733681576, 0.6790846759202163, 0.21855305259276428,
  ]],
  [-5, [
    0.1964231528691937, 0.48006842453323395, 0.020401048456542642, 0.4033896321971769,
    0.5203879910150734, 0.2998766103951016, 0.5309534228829177, 0.14211397369461173,
    0.7013731856879769, 0.0055828454148634105, 0.9986963043810514, 0.34830499451137864,
    0.4559853113337566, 0.8695878104533616, 0.5034164479814792, 0.7028432930241828,
    0.37239838715962736, 0.5878497680189011, 0.8709550513468701, 0.25989820327491087,
  ]],
  [2 ** 40, [
    0.5930843231590794, 0.685489550248101, 0.12766084912493997, 0.16973636762229527,
    0.8322283838373143, 0.6288723602048344, 0.2756491481409738, 0.8701954823885301,
    0.21287917289821717, 0.3553390949801088, 0.11801200445495971, 0.5941532296634219,
    0.07276931995071624, 0.15253303679444988, 0.4142848878549593, 0.10715770870170183,
    0.9038905602825587, 0.8147992231935252, 0.7609477211226628, 0.6652067912520766,
  ]],
  [123456789, [
    0.764978064279259, 0.8051820201933766, 0.7600901305492104, 0.5245621864314154,
    0.09368443587499392, 0.9941035869899636, 0.4089217938870209, 0.2921492981221736,
    0.5946309783841427, 0.6129140086832259, 0.42574994405581984, 0.01051113512627572,
    0.7783480012175636, 0.8643868986674241, 0.7118541533332682, 0.7963107603186229,
    0.7370649660068385, 0.15551876289875116, 0.5400158119025837, 0.6163440282009928,
  ]],
];

const K6_ODD = {
  abc: 0.9451961492941164,
  '1.5': 0.6046602879796196,
  '-1.5': 0.3951876009960174,
  '"42"': 0.3730283610466326,
  true: 0.6046602879796196,
  null: 0.9451961492941164,
  undefined: 0.9451961492941164,
  NaN: 0.9451961492941164,
  Infinity: 0.9451961492941164,
  '2**63': 0.8328240056498365,
  '-1e30': 0.8328240056498365,
  '2**53+2': 0.8976269557546322,
  '4294967296': 0.16729663442585624,
  '[7]': 0.9188921592527635,
  '{}': 0.9451961492941164,
  '-0': 0.9451961492941164,
  '12345678901234567': 0.24848503609471775,
  '(none)': 0.9451961492941164,
  '10n': 'TypeError: Cannot convert a BigInt value to a number',
  Symbol: 'TypeError: Cannot convert a Symbol value to a number',
};

test('goFloat64: the 608th, 1000th and 2000th draws are Go math/rand Float64 draws, past a turn of its 607-long state', () => {
  const GO = [
    [0, [0.5010900225675777, 0.8742189156878916, 0.2694124862370697]],
    [-5, [0.19275884942099716, 0.5764341846986981, 0.33423830586380454]],
    [2 ** 40, [0.3571952828574753, 0.4805225385194374, 0.2930945831714646]],
    [123456789, [0.5118388693391792, 0.46648448067516024, 0.6333524690187631]],
    [-(2 ** 63), [0.7787961242828008, 0.3636170215427344, 0.4999206026664264]],
  ];
  for (const [seed, want] of GO) {
    const random = goFloat64(seed);
    const got = [];
    for (let i = 0; i < 2000; i++) {
      const f = random();
      if (i === 607 || i === 999 || i === 1999) got.push(f);
    }
    assert.deepEqual(got, want, `seed ${seed}`);
  }
});

test("randomSeed(n): k6's 20 draws for each n, in the init code and in the default function; other values made seeds as k6 makes them", async () => {
  const seen = await scriptLogged(`import { randomSeed } from 'k6';

export const options = { vus: 1, iterations: 1 };

const SEEDS = [0, 1, -5, 2 ** 40, 123456789];
const ODD = [['abc', 'abc'], ['1.5', 1.5], ['-1.5', -1.5], ['"42"', '42'], ['true', true], ['null', null], ['undefined', undefined],
  ['NaN', NaN], ['Infinity', Infinity], ['2**63', 2 ** 63], ['-1e30', -1e30], ['2**53+2', 2 ** 53 + 2], ['4294967296', 4294967296],
  ['[7]', [7]], ['{}', {}], ['-0', -0], ['12345678901234567', 12345678901234567]];

function draws(n) {
  randomSeed(n);
  const v = [];
  for (let i = 0; i < 20; i++) v.push(Math.random());
  return v;
}

const init = SEEDS.map(draws);

export default function () {
  const odd = {};
  for (const [label, n] of ODD) {
    randomSeed(n);
    odd[label] = Math.random();
  }
  randomSeed();
  odd['(none)'] = Math.random();
  for (const [label, n] of [['10n', 10n], ['Symbol', Symbol('s')]]) {
    try {
      randomSeed(n);
      odd[label] = 'no exception';
    } catch (e) {
      odd[label] = String(e);
    }
  }
  console.log(JSON.stringify({ init, default: SEEDS.map(draws), odd }));
}
`);
  const draws = K6_DRAWS.map(([, v]) => v);
  assert.deepEqual(seen.init, draws);
  assert.deepEqual(seen.default, draws);
  assert.deepEqual(seen.odd, K6_ODD);
});

// Every line the script's console logged.
async function scriptLines(source) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-random-seed-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const r = await startScript(CLI, ['run', '-q', path], { timeoutMs: 60000 }).done;
    assert.equal(r.code, 0, r.stderr);
    return [...r.stderr.matchAll(/msg="(.*)" source=console/g)].map((m) => JSON.parse(`"${m[1]}"`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("randomSeed(): each VU's own; the init code's seed ends with it; teardown() and handleSummary() start unseeded", async () => {
  const lines = await scriptLines(`import { randomSeed, sleep } from 'k6';

export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 4, iterations: 3 } } };

randomSeed(7);
Math.random();
const next = Math.random();
randomSeed(7);
Math.random();

export function setup() {
  console.log('setup draws the init seed next: ' + (Math.random() === next));
  randomSeed(9);
}

export default function () {
  if (__ITER === 0) {
    console.log('vu draws the init seed next: ' + (Math.random() === next));
    randomSeed(7 + (__VU % 2));
  }
  sleep(0.01 * (__VU % 3));
  console.log('seed ' + (7 + (__VU % 2)) + ' iter ' + __ITER + ': ' + Math.random() + ' ' + Math.random());
}

export function teardown() {
  const t = Math.random();
  randomSeed(9);
  console.log('teardown continues the seed of setup: ' + (t === Math.random()));
  randomSeed(11);
}

export function handleSummary() {
  const t = Math.random();
  randomSeed(11);
  console.log('handleSummary continues the seed of teardown: ' + (t === Math.random()));
  return {};
}
`);
  const counts = {};
  for (const line of lines) counts[line] = (counts[line] ?? 0) + 1;
  assert.deepEqual(counts, {
    'setup draws the init seed next: false': 1,
    'vu draws the init seed next: false': 4,
    'seed 7 iter 0: 0.9188921592527635 0.23150717404875204': 2,
    'seed 7 iter 1: 0.24138756706529774 0.9115621743718174': 2,
    'seed 7 iter 2: 0.6982355437875076 0.14615594819178637': 2,
    'seed 8 iter 0: 0.45015378304654147 0.6815304742155356': 2,
    'seed 8 iter 1: 0.878379852306961 0.0911574234852467': 2,
    'seed 8 iter 2: 0.762855818544137 0.37121895059077403': 2,
    'teardown continues the seed of setup: false': 1,
    'handleSummary continues the seed of teardown: false': 1,
  });
});
