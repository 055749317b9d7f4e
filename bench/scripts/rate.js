// bench/scripts.sh, rate: VUs looping http.get(URL) (10 VUs for 5 s unless flags say otherwise).
import http from 'k6/http';

export const options = { vus: 10, duration: '5s' };

export default function () {
  http.get(__ENV.URL);
}
