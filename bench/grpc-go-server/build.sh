#!/usr/bin/env bash
# Builds bench/grpc-go-server/grpc-go-server offline: the Go modules it needs are taken from the
# vendor folder of k6's git mirror at v1.3.0 (google.golang.org/grpc and protobuf, and what they
# import), into a temporary folder; nothing of k6's is kept or committed.
#
#   bash bench/grpc-go-server/build.sh       # GO=/usr/lib/go-1.23/bin/go, K6_GIT=/work/.mirror/grafana+k6/repo
set -euo pipefail
cd "$(dirname "$0")"
GO=${GO:-$(command -v go || echo /usr/lib/go-1.23/bin/go)}
[ -x "$GO" ] || GO=/usr/lib/go-1.23/bin/go
K6_GIT=${K6_GIT:-/work/.mirror/grafana+k6/repo}
K6_REF=${K6_REF:-v1.3.0}
[ -x "$GO" ] || { echo "no go toolchain (go 1.23: apt-get install -t bookworm-backports golang-1.23-go)" >&2; exit 1; }
[ -d "$K6_GIT" ] || { echo "no k6 git mirror at $K6_GIT" >&2; exit 1; }

BUILD=$(mktemp -d)
trap 'chmod -R u+w "$BUILD" 2>/dev/null; rm -rf "$BUILD"' EXIT
# The modules of go.mod, from k6's vendor folder. A mirror may lack blobs that nothing here
# needs (x/text's collate tables): git archive stops at one it is asked for, and names it on
# stderr even when it is not asked for.
modules=$(awk '/^\t[a-z]/ { print $1 }' go.mod)
paths=(vendor/modules.txt)
for m in $modules; do
  if [ "$m" = golang.org/x/text ]; then
    mapfile -t -O ${#paths[@]} paths < <(git --git-dir="$K6_GIT" ls-tree --name-only "$K6_REF" "vendor/$m/" | grep -v /collate)
  else
    paths+=("vendor/$m")
  fi
done
git --git-dir="$K6_GIT" archive "$K6_REF" -- "${paths[@]}" 2>"$BUILD/archive.err" | tar -x -C "$BUILD"
grep -v 'collate/tables.go' "$BUILD/archive.err" >&2 || true
# vendor/modules.txt: k6's, cut to these modules (go checks it against go.mod).
awk -v mods="$modules" 'BEGIN { split(mods, a, /\n| /); for (i in a) keep[a[i]] = 1 }
  /^# / { on = ($2 in keep) } on' "$BUILD/vendor/modules.txt" >"$BUILD/modules.txt"
mv "$BUILD/modules.txt" "$BUILD/vendor/modules.txt"
cp go.mod main.go "$BUILD/"
(cd "$BUILD" && CGO_ENABLED=0 GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local "$GO" build -trimpath -o grpc-go-server .)
cp "$BUILD/grpc-go-server" .
echo "built $(pwd)/grpc-go-server ($("$GO" version | awk '{ print $3 }'), grpc v1.75.0)"
