module loadtest/bench/grpc-go-server

go 1.23.0

// The versions k6 v1.3.0 vendors: build.sh builds offline from its vendor folder.
require (
	github.com/bufbuild/protocompile v0.14.1
	google.golang.org/grpc v1.75.0
	google.golang.org/protobuf v1.36.8
)

require (
	golang.org/x/net v0.43.0 // indirect
	golang.org/x/sync v0.16.0 // indirect
	golang.org/x/sys v0.35.0 // indirect
	golang.org/x/text v0.28.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250728155136-f173205681a0 // indirect
)
