// A `require` that the script's loading cannot resolve (a file that is not there, a name that
// is neither k6's nor a file's, a k6 module that is not one): k6 resolves a require when it is
// called, so such a require throws then, not when the script loads. A UMD build's branch for
// node (PapaParse 5.0.2's `require` of `stream`) is never called under k6, and the script runs.
// The words are k6 v2.2.0's; the VU throws them (src/script/vu/vu.js unresolvable()), or, in an
// iteration, k6's refusal of any require outside the init stage.

import { VU } from './suspend.js';

export const notOnDisk = (spec) =>
  `The moduleSpecifier "${spec}" couldn't be found on local disk. Make sure that you've specified the right path to the file. If you're running k6 using the Docker image make sure you have mounted the local directory (-v /local/path/:/inside/docker/path) containing your script and modules so that they're accessible by k6 from inside of the container, see https://grafana.com/docs/k6/latest/using-k6/modules/#use-modules-with-docker.`;

export const unrecognised = (spec) => `The moduleSpecifier "${spec}" couldn't be recognised as something k6 supports.`;

// An extension's module (k6/x/...): k6 gives {} and fails the VU's init after its init code
// with these words; here the require throws them.
export const unknownModule = (spec) => `unknown modules ["${spec}"] were tried to be loaded, but couldn't - this likely means automatic extension resolution is required or a custom k6 binary with the required extensions`;

export const REQUIRE_OUTSIDE_INIT = 'the "require" function is only available in the init stage (i.e. the global scope), see https://grafana.com/docs/k6/latest/using-k6/test-lifecycle/ for more information';

/** What `require` becomes in a require that throws `message` when it runs (its arguments kept, so that the error's column is the call's). */
export const throwsWhenCalled = (message) => `${VU}.unresolvable(${JSON.stringify(message)})`;
