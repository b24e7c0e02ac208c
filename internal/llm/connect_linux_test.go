package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fullListener is a loopback socket whose accept queue is full, so a new
// connection waits in SYN-SENT: a server that never answers the
// connection, without leaving loopback.
func fullListener(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Skip(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Skip(err)
	}
	sa, _ := syscall.Getsockname(fd)
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	// Fill the queue: connections nobody accepts.
	for range 4 {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return addr // full
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("the accept queue never filled")
	return ""
}

func TestConnectTimeout(t *testing.T) {
	addr := fullListener(t)
	c := &Client{BaseURL: "http://" + addr + "/v1", MaxRetries: -1, ConnectTimeout: 50 * time.Millisecond, FirstByteTimeout: 10 * time.Second}
	_, err := c.Chat(context.Background(), &Request{}, nil)
	var ne net.Error
	if err == nil || !strings.Contains(err.Error(), "cannot reach the provider") || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err = %v", err)
	}
}
