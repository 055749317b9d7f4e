// TypeScript as k6 v1 runs it: types removed, an import used only as a type left out.
import http from 'k6/http'
import { check } from 'k6'
import { Options } from 'k6/options'

interface Item { id: number; name: string }

export const options: Options = { iterations: 3 }

function itemsUrl(base: string, id: number): string {
  return `${base}/anything/items/${id}`
}

export default function (): void {
  const item: Item = { id: __ITER, name: 'thing' }
  const res = http.get(itemsUrl(__ENV.BASE as string, item.id))
  check(res, { 'item 200': (r) => r.status === 200 })
}
