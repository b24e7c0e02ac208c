package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// go-plugin's gRPC protocol, the one HashiCorp recommends. The service is
// declared by hand (no protoc in the build) with protobuf's well-known
// StringValue as request and answer, so the wire is real gRPC and protobuf.

type echoGRPC interface {
	Echo(context.Context, *wrapperspb.StringValue) (*wrapperspb.StringValue, error)
}

type echoGRPCServer struct{}

func (echoGRPCServer) Echo(_ context.Context, in *wrapperspb.StringValue) (*wrapperspb.StringValue, error) {
	return in, nil
}

const echoMethod = "/hearth.bench.Echo/Echo"

var echoServiceDesc = grpc.ServiceDesc{
	ServiceName: "hearth.bench.Echo",
	HandlerType: (*echoGRPC)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Echo",
		Handler: func(srv any, ctx context.Context, dec func(any) error, icpt grpc.UnaryServerInterceptor) (any, error) {
			in := new(wrapperspb.StringValue)
			if err := dec(in); err != nil {
				return nil, err
			}
			if icpt == nil {
				return srv.(echoGRPC).Echo(ctx, in)
			}
			return icpt(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: echoMethod},
				func(ctx context.Context, req any) (any, error) {
					return srv.(echoGRPC).Echo(ctx, req.(*wrapperspb.StringValue))
				})
		},
	}},
}

type echoGRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (echoGRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	s.RegisterService(&echoServiceDesc, echoGRPCServer{})
	return nil
}

func (echoGRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return c, nil
}

func serveGoPluginGRPC() {
	plugin.Serve(&plugin.ServeConfig{HandshakeConfig: handshake,
		Plugins: map[string]plugin.Plugin{"echo": echoGRPCPlugin{}}, GRPCServer: plugin.DefaultGRPCServer})
	os.Exit(0)
}

func setupGoPluginGRPC(b *testing.B) (caller, func()) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BENCH_CHILD=goplugingrpc")
	raw, client := dispense(b, cmd, echoGRPCPlugin{}, plugin.ProtocolGRPC)
	conn := raw.(*grpc.ClientConn)
	in := wrapperspb.String("你好, hearth")
	return func(ctx context.Context) error {
		out := new(wrapperspb.StringValue)
		if err := conn.Invoke(ctx, echoMethod, in, out); err != nil {
			return err
		}
		if out.Value != in.Value {
			return fmt.Errorf("echo %q", out.Value)
		}
		return nil
	}, client.Kill
}

func BenchmarkEchoGoPluginGRPC(b *testing.B) { run(b, setupGoPluginGRPC) }
