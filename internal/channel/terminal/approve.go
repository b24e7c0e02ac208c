package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/hearth-agent/hearth/internal/policy"
)

// waitInput returns when br has input to read, or ctx ends.
func waitInput(ctx context.Context, fd int, br *bufio.Reader) error {
	for br.Buffered() == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		ok, err := readable(fd, 100*time.Millisecond)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return nil
}

// describeApproval is the prompt's text, without the answer line.
func describeApproval(req *policy.ApprovalRequest, color bool) string {
	var b strings.Builder
	title := req.Title
	if title != req.Tool {
		title += " (" + req.Tool + ")"
	}
	head := fmt.Sprintf("⚠ 需要确认 / Approval needed: %s · %s", title, req.Effect)
	if color {
		head = "\x1b[1;33m" + head + reset
	}
	b.WriteString(head + "\n")
	if req.Target != nil && req.Target.Label != "" {
		fmt.Fprintf(&b, "  目标 target: %s\n", req.Target.Label)
		if req.Target.Context != "" {
			fmt.Fprintf(&b, "               %s\n", req.Target.Context)
		}
	}
	fmt.Fprintf(&b, "  参数 args:   %s\n", shorten(string(req.Args), 300))
	if req.Reason != "" {
		fmt.Fprintf(&b, "  原因 why:    %s\n", req.Reason)
	}
	return b.String()
}

func answerLine(req *policy.ApprovalRequest) string {
	always := "always for this tool 始终允许"
	if req.Grant {
		always = "grant lasting access 长期授权"
	}
	return fmt.Sprintf("  [y] allow once 允许一次  [a] %s  [n] deny 拒绝  (until %s) › ", always, req.Expires.Format("15:04:05"))
}

func parseAnswer(s string) (policy.Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes", "是", "允许":
		return policy.AllowOnce, true
	case "a", "always", "始终":
		return policy.AllowAlways, true
	case "n", "no", "否", "拒绝":
		return policy.Refuse, true
	}
	return "", false
}

// ttyApprover asks on the terminal, reading one key in raw mode. It
// returns when a valid key is pressed or the request expires.
func (r *ttyReader) approver(scr *screen) policy.Approver {
	return func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		scr.mu.Lock()
		defer scr.mu.Unlock()
		io.WriteString(scr.out, "\n"+describeApproval(req, scr.color)+answerLine(req))
		state, err := term.MakeRaw(r.fd)
		if err != nil {
			return "", err
		}
		defer term.Restore(r.fd, state)
		for {
			if err := waitInput(ctx, r.fd, r.ed.in); err != nil {
				io.WriteString(scr.out, "\r\n(expired / 已过期)\r\n")
				return "", err
			}
			c, _, err := r.ed.in.ReadRune()
			if err != nil {
				return "", err
			}
			if c == 0x03 || c == 0x1b { // Ctrl-C, Esc
				c = 'n'
			}
			if a, ok := parseAnswer(string(c)); ok {
				io.WriteString(scr.out, string(c)+"\r\n")
				return a, nil
			}
		}
	}
}

// plainApprover asks on a pipe, reading one line.
func (p *plainReader) approver(out io.Writer) policy.Approver {
	return func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		io.WriteString(out, describeApproval(req, false)+answerLine(req)+"\n")
		for {
			if err := waitInput(ctx, p.fd, p.br); err != nil {
				return "", err
			}
			line, err := p.br.ReadString('\n')
			if a, ok := parseAnswer(line); ok {
				return a, nil
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					return "", errors.New("input ended before an answer")
				}
				return "", err
			}
			io.WriteString(out, "answer y, a or n › \n")
		}
	}
}
