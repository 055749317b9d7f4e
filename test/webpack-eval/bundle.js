/*
 * ATTENTION: The "eval" devtool has been used (maybe by default in mode: "development").
 * This devtool is neither made for production nor for readable output files.
 * It uses "eval()" calls to create a separate source file in the browser devtools.
 * If you are trying to read the output file, select a different devtool (https://webpack.js.org/configuration/devtool/)
 * or disable the default devtool with "devtool: false".
 * If you are looking for production-ready output files, see mode: "production" (https://webpack.js.org/configuration/mode/).
 */
/******/ (() => { // webpackBootstrap
/******/ 	var __webpack_modules__ = ({

/***/ "k6"
/*!*********************!*\
  !*** external "k6" ***!
  \*********************/
(module) {

"use strict";
module.exports = require("k6");

/***/ },

/***/ "k6/http"
/*!**************************!*\
  !*** external "k6/http" ***!
  \**************************/
(module) {

"use strict";
module.exports = require("k6/http");

/***/ },

/***/ "./src/tally.cjs"
/*!***********************!*\
  !*** ./src/tally.cjs ***!
  \***********************/
(module, __unused_webpack_exports, __webpack_require__) {

eval("{// A CommonJS module that requires k6's modules.\nconst http = __webpack_require__(/*! k6/http */ \"k6/http\");\nconst { check } = __webpack_require__(/*! k6 */ \"k6\");\n\nlet count = 0;\n\nfunction tally(base) {\n  count++;\n  const res = http.post(`${base}/post`, JSON.stringify({ vu: __VU, count }));\n  check(res, { 'tally posted': (r) => r.status === 200 });\n  return count;\n}\n\nmodule.exports = { tally };\n\n\n//# sourceURL=webpack:///./src/tally.cjs?\n}");

/***/ },

/***/ "./src/client.js"
/*!***********************!*\
  !*** ./src/client.js ***!
  \***********************/
(__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) {

"use strict";
eval("{__webpack_require__.r(__webpack_exports__);\n/* harmony export */ __webpack_require__.d(__webpack_exports__, {\n/* harmony export */   Client: () => (/* binding */ Client)\n/* harmony export */ });\n/* harmony import */ var k6_http__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(/*! k6/http */ \"k6/http\");\n// A class whose method makes a request: the caller gets the response, not a promise.\n\n\nclass Client {\n  constructor(base) {\n    this.base = base;\n    this.calls = 0;\n  }\n\n  get(path) {\n    this.calls++;\n    return k6_http__WEBPACK_IMPORTED_MODULE_0__.get(`${this.base}${path}`);\n  }\n}\n\n\n//# sourceURL=webpack:///./src/client.js?\n}");

/***/ },

/***/ "./src/flows.js"
/*!**********************!*\
  !*** ./src/flows.js ***!
  \**********************/
(__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) {

"use strict";
eval("{__webpack_require__.r(__webpack_exports__);\n/* harmony export */ __webpack_require__.d(__webpack_exports__, {\n/* harmony export */   boom: () => (/* binding */ boom),\n/* harmony export */   later: () => (/* binding */ later),\n/* harmony export */   visit: () => (/* binding */ visit)\n/* harmony export */ });\n/* harmony import */ var k6_http__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(/*! k6/http */ \"k6/http\");\n/* harmony import */ var k6__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(/*! k6 */ \"k6\");\n// group, check, sleep and requests in an imported module; an async function; an exception.\n\n\n\nfunction visit(client, path) {\n  return (0,k6__WEBPACK_IMPORTED_MODULE_1__.group)(`visit ${path}`, () => {\n    const res = client.get(path);\n    (0,k6__WEBPACK_IMPORTED_MODULE_1__.check)(res, { [`${path} is 200`]: (r) => r.status === 200 });\n    (0,k6__WEBPACK_IMPORTED_MODULE_1__.sleep)(0.01);\n    return res.status;\n  });\n}\n\nasync function later(base, path) {\n  const res = await k6_http__WEBPACK_IMPORTED_MODULE_0__.asyncRequest('GET', `${base}${path}`);\n  return res.status;\n}\n\nfunction boom(client) {\n  const body = client.get('/anything/boom').json();\n  return body.missing.field;\n}\n\n\n//# sourceURL=webpack:///./src/flows.js?\n}");

/***/ },

/***/ "./src/main.js"
/*!*********************!*\
  !*** ./src/main.js ***!
  \*********************/
(__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) {

"use strict";
eval("{__webpack_require__.r(__webpack_exports__);\n/* harmony export */ __webpack_require__.d(__webpack_exports__, {\n/* harmony export */   \"default\": () => (/* export default binding */ __WEBPACK_DEFAULT_EXPORT__),\n/* harmony export */   options: () => (/* binding */ options)\n/* harmony export */ });\n/* harmony import */ var _client_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(/*! ./client.js */ \"./src/client.js\");\n/* harmony import */ var _flows_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(/*! ./flows.js */ \"./src/flows.js\");\n/* harmony import */ var _tally_cjs__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(/*! ./tally.cjs */ \"./src/tally.cjs\");\n\n\n\n\nconst options = { vus: 2, iterations: 4 };\nconst base = __ENV.BASE;\n\n/* harmony default export */ async function __WEBPACK_DEFAULT_EXPORT__() {\n  const client = new _client_js__WEBPACK_IMPORTED_MODULE_0__.Client(base);\n  if (__ENV.THROW) (0,_flows_js__WEBPACK_IMPORTED_MODULE_1__.boom)(client);\n  const a = (0,_flows_js__WEBPACK_IMPORTED_MODULE_1__.visit)(client, '/get');\n  const b = await (0,_flows_js__WEBPACK_IMPORTED_MODULE_1__.later)(base, '/status/201');\n  const n = (0,_tally_cjs__WEBPACK_IMPORTED_MODULE_2__.tally)(base);\n  console.log(`vu=${__VU} iter=${__ITER} visit=${a} later=${b} calls=${client.calls} tally=${n}`);\n}\n\n\n//# sourceURL=webpack:///./src/main.js?\n}");

/***/ }

/******/ 	});
/************************************************************************/
/******/ 	// The module cache
/******/ 	const __webpack_module_cache__ = {};
/******/ 	
/******/ 	// The require function
/******/ 	function __webpack_require__(moduleId) {
/******/ 		// Check if module is in cache
/******/ 		const cachedModule = __webpack_module_cache__[moduleId];
/******/ 		if (cachedModule !== undefined) {
/******/ 			return cachedModule.exports;
/******/ 		}
/******/ 		// Create a new module (and put it into the cache)
/******/ 		const module = __webpack_module_cache__[moduleId] = {
/******/ 			// no module.id needed
/******/ 			// no module.loaded needed
/******/ 			exports: {}
/******/ 		};
/******/ 	
/******/ 		// Execute the module function
/******/ 		if (!(moduleId in __webpack_modules__)) {
/******/ 			delete __webpack_module_cache__[moduleId];
/******/ 			const e = new Error("Cannot find module '" + moduleId + "'");
/******/ 			e.code = 'MODULE_NOT_FOUND';
/******/ 			throw e;
/******/ 		}
/******/ 		__webpack_modules__[moduleId](module, module.exports, __webpack_require__);
/******/ 	
/******/ 		// Return the exports of the module
/******/ 		return module.exports;
/******/ 	}
/******/ 	
/************************************************************************/
/******/ 	/* webpack/runtime/define property getters */
/******/ 	// define getter/value functions for harmony exports
/******/ 	__webpack_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__webpack_require__.o(definition, key) && !__webpack_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ 	
/******/ 	/* webpack/runtime/hasOwnProperty shorthand */
/******/ 	__webpack_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop));
/******/ 	
/******/ 	/* webpack/runtime/make namespace object */
/******/ 	// define __esModule on exports
/******/ 	__webpack_require__.r = (exports) => {
/******/ 		Object.defineProperties(exports, { [Symbol.toStringTag]: { value: 'Module' }, __esModule: { value: true } });
/******/ 	};
/******/ 	
/************************************************************************/
/******/ 	
/******/ 	// startup
/******/ 	// Load entry module and return exports
/******/ 	// This entry module can't be inlined because the eval devtool is used.
/******/ 	let __webpack_exports__ = __webpack_require__("./src/main.js");
/******/ 	const __webpack_export_target__ = exports;
/******/ 	for(var __webpack_i__ in __webpack_exports__) __webpack_export_target__[__webpack_i__] = __webpack_exports__[__webpack_i__];
/******/ 	if(__webpack_exports__.__esModule) Object.defineProperty(__webpack_export_target__, "__esModule", { value: true });
/******/ 	
/******/ })()
;