// The four kinds of custom metric, with tags, and thresholds on them and on their sub-metrics.
// Every value added is a constant, so that each figure is the same on every run.
import http from 'k6/http';
import { check } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';

const ordersPlaced = new Counter('orders_placed');
const basketSize = new Gauge('basket_size');
const paymentOk = new Rate('payment_ok');
const orderValue = new Trend('order_value');
const packingTime = new Trend('packing_time', true);

export const options = {
  vus: 2,
  iterations: 6,
  thresholds: {
    orders_placed: ['count==18'],
    'orders_placed{kind:gift}': ['count==6'],
    basket_size: ['value==2'],
    payment_ok: ['rate>0.5'],
    'payment_ok{kind:gift}': ['rate==0'],
    order_value: ['min==10', 'max==60', 'avg==30'],
    'order_value{kind:gift}': ['max==60'],
    packing_time: ['max<1000'],
  },
};

export default function () {
  const res = http.post(`${__ENV.BASE}/post`, { order: 'one' });
  const ok = check(res, { 'order accepted': (r) => r.status === 200 });
  ordersPlaced.add(2);
  ordersPlaced.add(1, { kind: 'gift' });
  basketSize.add(7);
  basketSize.add(2);
  paymentOk.add(ok);
  paymentOk.add(true);
  paymentOk.add(0, { kind: 'gift' });
  orderValue.add(10);
  orderValue.add(20);
  orderValue.add(60, { kind: 'gift' });
  packingTime.add(250);
}
