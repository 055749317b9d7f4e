// k6/timers: setTimeout, setInterval and their clears, the same as the globals a script has
// (src/script/eventloop/event-loop.js: an iteration ends once its timers have).

export function timersModule(vu) {
  const { setTimeout, setInterval, clearTimeout, clearInterval } = vu.loop;
  const api = { setTimeout, setInterval, clearTimeout, clearInterval };
  return { default: api, ...api };
}
