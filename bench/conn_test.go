package bench

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/hearth-agent/hearth/sdk/wire"
)

// serveConn answers "echo" with a bare wire.Conn: the protocol's
// connection without the plugin SDK on top.
func serveConn() {
	c := wire.NewConn(os.Stdin, os.Stdout, nil)
	c.Handle("echo", func(_ context.Context, p json.RawMessage) (any, error) { return p, nil })
	c.Run()
	os.Exit(0)
}

func setupConn(b *testing.B) (caller, func()) {
	cmd := child("conn")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := wire.NewConn(stdout, stdin, nil)
	go c.Run()
	msg := json.RawMessage(payload)
	return func(ctx context.Context) error {
		var out json.RawMessage
		return c.Call(ctx, "echo", msg, &out)
	}, func() { stdin.Close(); cmd.Wait() }
}

// BenchmarkEchoConn is the Hearth connection alone, process to process.
func BenchmarkEchoConn(b *testing.B) { run(b, setupConn) }
