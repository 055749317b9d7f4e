#!/usr/bin/env bash
# The regimes in one table (bench/README.md, "Three regimes", "TLS and large bodies"):
#
#   bash bench/regimes.sh                      # 3 rounds of 5 s runs (20 s at 10 000 connections), ~45 min
#   ROUNDS=5 SECONDS_PER_RUN=10 bash bench/regimes.sh
#   REGIMES=tls,big ROUNDS=3 bash bench/regimes.sh   # https and 1 MiB bodies only
#   REGIMES=h2c,h2 ROUNDS=3 bash bench/regimes.sh    # HTTP/2 beside h2load -c 10 -m 10
#   REGIMES=10k TOOLS='wrk|deno' bash bench/regimes.sh   # a part of it
#
# Installs wrk, nginx and ab (apache2-utils) with apt-get when they are missing, raises the
# open-file limit for 10 000 connections, then runs bench/regimes.js.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v nginx >/dev/null || missing+=(nginx)
command -v ab >/dev/null || missing+=(apache2-utils)
command -v taskset >/dev/null || missing+=(util-linux)
command -v openssl >/dev/null || missing+=(openssl)
command -v h2load >/dev/null || missing+=(nghttp2-client)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} (apt-get)"
  apt-get install -y "${missing[@]}" >/dev/null || { apt-get update >/dev/null && apt-get install -y "${missing[@]}" >/dev/null; }
fi
# 10 000 client connections need as many descriptors in the tool, and nginx as many again.
want=$(( ${CONNS:-10000} + 1000 ))
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$want" ]; then
  echo "open-file limit $(ulimit -n) (hard $(ulimit -Hn)) is below $want: the ${CONNS:-10000}-connection regime will fail" >&2
elif [ "$(ulimit -n)" -lt 65536 ]; then
  echo "open-file limit: $(ulimit -n) (65536 not allowed here; enough for ${CONNS:-10000} connections)"
fi
exec node bench/regimes.js
