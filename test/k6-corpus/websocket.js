// WebSocket scripts as k6 users write them: k6/ws's connect with its handlers and the socket's
// timers, and the browser-like WebSocket of k6/experimental/websockets, against the echo.
import ws from 'k6/ws'
import { WebSocket } from 'k6/experimental/websockets'
import { check } from 'k6'

const url = __ENV.BASE.replace('http://', 'ws://') + '/ws'

export const options = { vus: 2, iterations: 4, thresholds: { checks: ['rate==1'] } }

export default function () {
  let received = 0
  const res = ws.connect(url, { tags: { kind: 'classic' } }, function (socket) {
    socket.on('open', () => {
      socket.send(JSON.stringify({ n: __ITER }))
      socket.sendBinary(new Uint8Array([1, 2, 3]).buffer)
      socket.setTimeout(() => socket.close(), 10000) // only if an echo never came
    })
    // Closed once both echoes are back.
    const back = () => {
      if (++received === 2) socket.close()
    }
    socket.on('message', (m) => {
      check(JSON.parse(m), { 'echoed its own': (x) => x.n === __ITER })
      back()
    })
    socket.on('binaryMessage', (b) => {
      check(b, { 'three bytes back': (x) => x.byteLength === 3 })
      back()
    })
    socket.on('close', () => check(received, { 'both back before the close': (n) => n === 2 }))
  })
  check(res, { 'upgraded': (r) => r && r.status === 101 })

  const browser = new WebSocket(url)
  browser.onopen = () => browser.send('hello')
  browser.onmessage = (e) => {
    check(e.data, { 'hello back': (d) => d === 'hello' })
    browser.close()
  }
}
