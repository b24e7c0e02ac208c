package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// turnTimeout bounds one turn of a host (a hung host fails the run with
// what it printed, instead of hanging the harness). It is not a
// measurement limit.
const turnTimeout = 60 * time.Second

// command builds a host's process in its home, in its own process group
// so that a kill reaches the tool servers it started.
func command(ctx context.Context, h *host, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, h.bin, args...)
	cmd.Dir = h.home
	cmd.Env = append(os.Environ(), h.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// runOnce runs a one-shot command and returns its wall time from start
// to exit and what it printed.
func runOnce(h *host, args ...string) (time.Duration, string, error) {
	return runOnceEnv(h, nil, args...)
}

// runOnceEnv is runOnce with env added to the host's environment.
func runOnceEnv(h *host, env []string, args ...string) (time.Duration, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), turnTimeout)
	defer cancel()
	cmd := command(ctx, h, args...)
	cmd.Env = append(cmd.Env, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return wall, out.String(), fmt.Errorf("%s %s: %w\nstdout: %s\nstderr: %s", h.name, strings.Join(args, " "), err, tail(out.String()), tail(errOut.String()))
	}
	return wall, out.String() + errOut.String(), nil
}

func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}

// session is a host's interactive process: lines go to its stdin, its
// answers are read from its output.
type session struct {
	h      *host
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser

	mu      sync.Mutex
	out     bytes.Buffer
	changed chan struct{} // closed and replaced on every write to out
	done    chan struct{} // closed when the process has exited
	waitErr error
}

func (s *session) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

// startSession starts h's interactive process with args, on pipes, or
// on a pseudo-terminal if h.tty.
func startSession(h *host, args ...string) (*session, error) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{h: h, cancel: cancel, changed: make(chan struct{}), done: make(chan struct{})}
	s.cmd = command(ctx, h, args...)
	var tty *os.File
	if h.tty {
		ptmx, pts, err := openPTY()
		if err != nil {
			cancel()
			return nil, err
		}
		tty = pts
		defer pts.Close()
		s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = pts, pts, pts
		s.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		s.stdin = ptmx
		go func() { io.Copy(s, ptmx) }()
	} else {
		s.cmd.Stdout, s.cmd.Stderr = s, s
		var err error
		if s.stdin, err = s.cmd.StdinPipe(); err != nil {
			cancel()
			return nil, err
		}
	}
	if err := s.cmd.Start(); err != nil {
		cancel()
		if tty != nil {
			s.stdin.Close()
		}
		return nil, fmt.Errorf("%s: %w", h.name, err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// turn sends line and waits until the output after it contains want; it
// returns the time from the write to the answer.
func (s *session) turn(line, want string) (time.Duration, error) {
	s.mu.Lock()
	from := s.out.Len()
	s.mu.Unlock()
	start := time.Now()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		return 0, fmt.Errorf("%s: writing a turn: %w", s.h.name, err)
	}
	timeout := time.After(turnTimeout)
	for {
		s.mu.Lock()
		found := bytes.Contains(s.out.Bytes()[from:], []byte(want))
		changed := s.changed
		s.mu.Unlock()
		if found {
			return time.Since(start), nil
		}
		select {
		case <-changed:
		case <-s.done:
			return 0, fmt.Errorf("%s exited (%v) before answering %q:\n%s", s.h.name, s.waitErr, want, s.output())
		case <-timeout:
			return 0, fmt.Errorf("%s: no %q after %v:\n%s", s.h.name, want, turnTimeout, s.output())
		}
	}
}

func (s *session) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return tail(s.out.String())
}

// rss returns the resident memory of the host's process, and of it with
// all its descendants (the tool servers it started), in bytes.
func (s *session) rss() (self, tree int64, err error) {
	pid := s.cmd.Process.Pid
	if self, err = vmRSS(pid); err != nil {
		return 0, 0, err
	}
	tree = self
	for _, d := range descendants(pid) {
		if n, err := vmRSS(d); err == nil {
			tree += n
		}
	}
	return self, tree, nil
}

func (s *session) close() {
	s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(3 * time.Second):
	}
	s.cancel()
	<-s.done
}

// openPTY opens a pseudo-terminal pair of 50 rows and 160 columns.
func openPTY() (ptmx, pts *os.File, err error) {
	ptmx, err = os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		ptmx.Close()
		return nil, nil, fmt.Errorf("unlocking the pseudo-terminal: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		ptmx.Close()
		return nil, nil, fmt.Errorf("naming the pseudo-terminal: %w", err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ptmx.Close()
		return nil, nil, fmt.Errorf("opening the pseudo-terminal: %w", err)
	}
	unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: 160})
	return ptmx, pts, nil
}

// vmRSS reads VmRSS from /proc/<pid>/status.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n << 10, err
			}
		}
	}
	return 0, errors.New("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		p, _ := strconv.Atoi(strings.Fields(s)[0])
		pp, _ := strconv.Atoi(fields[1])
		parent[p] = pp
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
