// A gRPC server for the benchmarks, fast enough that the client is what is measured (the grpc-js
// test server, on one core, is slower than any client): loadtest.test.Echo/Say of
// test/grpc/echo.proto on google.golang.org/grpc, with server reflection. Built offline by
// build.sh; run as `grpc-go-server [-addr 127.0.0.1:0] [-proto DIR]`. It prints {"port":N} when
// ready and exits when its stdin closes, as test/grpc-server.js does, so a bench that dies
// leaves no server behind.
//
// Say answers as the test server does for what a bench sends: `code` (0: a Reply "hello NAME"
// with the call's count, the request's meta and kind GREETING; else that status), after
// `delay_ms`. `reset` and the streaming methods are not served (Unimplemented).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registered first: the codec below delegates to it
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// The messages of Say, by hand: no protoc, and no reflection-driven (dynamicpb) coding per call.
type hello struct {
	name    []byte
	code    int32
	delayMs int32
	meta    []byte // loadtest.meta.Meta as it came: the reply's meta is the same bytes
}

type reply struct {
	message []byte
	count   int32
	meta    []byte
}

func (h *hello) unmarshal(b []byte) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			h.name, n = v, m
		case num == 6 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			h.meta, n = v, m
		case (num == 2 || num == 3) && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			if num == 2 {
				h.code = int32(v)
			} else {
				h.delayMs = int32(v)
			}
			n = m
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
		}
		b = b[n:]
	}
	return nil
}

func (r *reply) marshal() []byte {
	b := make([]byte, 0, 16+len(r.message)+len(r.meta))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, r.message)
	if r.count != 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(r.count))
	}
	if r.meta != nil {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendBytes(b, r.meta)
	}
	b = protowire.AppendTag(b, 4, protowire.VarintType) // kind: GREETING
	return protowire.AppendVarint(b, 1)
}

// codec codes hello and reply by hand and hands every other message (reflection's) to grpc's
// own proto codec, whose name it takes over.
type codec struct{ proto encoding.CodecV2 }

func (c codec) Name() string { return "proto" }

func (c codec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*reply); ok {
		return mem.BufferSlice{mem.SliceBuffer(r.marshal())}, nil
	}
	return c.proto.Marshal(v)
}

func (c codec) Unmarshal(data mem.BufferSlice, v any) error {
	if h, ok := v.(*hello); ok {
		if len(data) == 1 {
			// hello keeps slices of it: a copy, the buffer goes back to its pool after the call.
			return h.unmarshal(append([]byte(nil), data[0].ReadOnlyData()...))
		}
		return h.unmarshal(data.Materialize())
	}
	return c.proto.Unmarshal(data, v)
}

var calls atomic.Int32

func say(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	h := &hello{}
	if err := dec(h); err != nil {
		return nil, err
	}
	n := calls.Add(1)
	if h.delayMs > 0 {
		select {
		case <-time.After(time.Duration(h.delayMs) * time.Millisecond):
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	if h.code != 0 {
		return nil, status.Errorf(codes.Code(h.code), "asked for %d", h.code)
	}
	return &reply{message: append([]byte("hello "), h.name...), count: n, meta: h.meta}, nil
}

var echoService = grpc.ServiceDesc{
	ServiceName: "loadtest.test.Echo",
	HandlerType: (*any)(nil),
	Methods:     []grpc.MethodDesc{{MethodName: "Say", Handler: say}},
	Metadata:    "echo.proto",
}

// register adds f, after the files it imports, to the registry reflection answers from.
func register(f protoreflect.FileDescriptor) error {
	if _, err := protoregistry.GlobalFiles.FindFileByPath(f.Path()); err == nil {
		return nil
	}
	imports := f.Imports()
	for i := 0; i < imports.Len(); i++ {
		if err := register(imports.Get(i).FileDescriptor); err != nil {
			return err
		}
	}
	return protoregistry.GlobalFiles.RegisterFile(f)
}

// describe registers echo.proto's files (parsed here, no protoc) for reflection.
func describe(dir string) error {
	compiler := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		ImportPaths: []string{dir, filepath.Join(dir, "include")},
	})}
	files, err := compiler.Compile(context.Background(), "echo.proto")
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := register(f); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	dir := flag.String("proto", "test/grpc", "the folder of echo.proto (its imports in DIR/include), for reflection")
	flag.Parse()
	encoding.RegisterCodecV2(codec{proto: encoding.GetCodecV2("proto")})

	// grpc.NumStreamWorkers(1) and 1 MiB windows were tried: no faster (h2load, -c 10 -m 10).
	server := grpc.NewServer()
	server.RegisterService(&echoService, nil)
	if err := describe(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "grpc-go-server: reflection:", err)
		os.Exit(1)
	}
	reflection.Register(server)

	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpc-go-server:", err)
		os.Exit(1)
	}
	fmt.Printf("{\"port\":%d}\n", lis.Addr().(*net.TCPAddr).Port)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	if err := server.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, "grpc-go-server:", err)
		os.Exit(1)
	}
}
