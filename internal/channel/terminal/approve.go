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

	"github.com/hearth-agent/hearth/internal/argview"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
)

// How an approval is asked on a terminal, so that it is answered on
// purpose:
//
//   - The prompt shows every argument, folded to the screen's width and
//     never cut; the target and the arguments that name a payee or an
//     amount come first, and are repeated above the answer line when the
//     prompt is long. So do arguments whose name hides characters, with a
//     warning naming what they look like; invisible characters are shown
//     as codes (see Sanitize).
//   - Keys typed before the prompt (while the tool before it ran) are
//     discarded, and so are keys typed while the prompt is drawn: the
//     answer line appears only once typing has paused for settleTime, and
//     only a key pressed after it counts.
//   - "Allow always" for a money or public effect, or a grant, needs the
//     word "always" typed out and Enter: a stray "a" cannot give lasting
//     permission to spend or publish.

// settleTime is how long input must be quiet before an approval prompt
// takes an answer.
const settleTime = 400 * time.Millisecond

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

// needsConfirm reports whether "allow always" must be confirmed by typing
// the word: lasting permission to spend, publish, or grant access.
func needsConfirm(req *policy.ApprovalRequest) bool {
	return req.Grant || req.Effect == sdk.EffectMoney || req.Effect == sdk.EffectPublic
}

// keyNames are argument names (lowercase, without _ and -) that say who is
// paid or how much; keyParts are parts of such names.
var (
	keyNames = map[string]bool{"to": true, "dest": true, "destination": true, "address": true,
		"wallet": true, "iban": true, "qty": true, "quantity": true, "sum": true, "total": true,
		"value": true, "target": true, "recipients": true, "receiver": true, "phone": true, "email": true}
	keyParts = []string{"amount", "price", "cost", "fee", "payee", "recipient", "account", "beneficiary",
		"currency", "receiver", "iban", "wallet", "address"}
)

func isKeyName(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(argview.VisibleName(name, hiddenRune)))
	if keyNames[n] {
		return true
	}
	for _, p := range keyParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}

// fold writes text after a label, wrapped to width columns (0: no
// wrapping), continuation lines indented under the text. text must be
// sanitized for one line.
func fold(b *strings.Builder, label, text string, width int) {
	indent := stringWidth(label)
	b.WriteString(label)
	if width <= 0 || width-indent < 20 {
		b.WriteString(text + "\n")
		return
	}
	col := indent
	for _, r := range text {
		w := runeWidth(r)
		if col+w > width-1 {
			b.WriteString("\n" + strings.Repeat(" ", indent+2))
			col = indent + 2
		}
		b.WriteRune(r)
		col += w
	}
	b.WriteString("\n")
}

const (
	labelTarget = "  目标 target: "
	labelKey    = "  要点 key:    "
	labelArgs   = "  参数 args:   "
	labelWhy    = "  原因 why:    "
	labelAgain  = "  再看 again:  "
	labelBlank  = "               "
)

// describeApproval is the prompt's text, without the answer line: every
// argument, the target and the payee and amount first. Everything from the
// plugin or the model is neutralised. width folds long values (0: none).
func describeApproval(req *policy.ApprovalRequest, color bool, width int) string {
	var b strings.Builder
	title := SanitizeLine(req.Title)
	if req.Title != req.Tool {
		title += " (" + SanitizeLine(req.Tool) + ")"
	}
	head := fmt.Sprintf("⚠ 需要确认 / Approval needed: %s · %s", title, SanitizeLine(string(req.Effect)))
	if color {
		head = "\x1b[1;33m" + head + reset
	}
	b.WriteString(head + "\n")

	// The target and the payee and amount come first, and are repeated
	// above the answer line when the rest is long enough to scroll them
	// away.
	type item struct{ label, text string }
	var key []item
	if req.Target != nil && (req.Target.Label != "" || req.Target.Context != "") {
		key = append(key, item{labelTarget, SanitizeLine(req.Target.Label)})
		if req.Target.Context != "" {
			key = append(key, item{labelBlank, SanitizeLine(req.Target.Context)})
		}
	}
	var rest strings.Builder
	// Names are compared as they look: "amo\u200bunt" next to "amount" is
	// a duplicate, and a name hiding characters is a key field, so that it
	// is shown first, with a warning.
	fields, err := argview.Fields(req.Args, 0, hiddenRune)
	if err != nil {
		fold(&rest, labelArgs, SanitizeLine(string(req.Args)), width)
	}
	firstKey, firstRest := labelKey, labelArgs
	for _, f := range fields {
		line := SanitizeLine(f.Path) + " = " + SanitizeLine(f.Value)
		if f.Visible != f.Path {
			line += "   ⚠ the name hides characters; it looks like " + SanitizeLine(f.Visible) + " / 键名含不可见字符"
		}
		if f.Dup {
			line += "   ⚠ key given more than once / 重复的键"
		}
		if f.Visible != f.Path || isKeyName(f.Name) {
			key = append(key, item{firstKey, line})
			firstKey = labelBlank
			continue
		}
		fold(&rest, firstRest, line, width)
		firstRest = labelBlank
	}
	if err == nil && len(fields) == 0 {
		rest.WriteString(labelArgs + "{}\n")
	}
	for _, it := range key {
		fold(&b, it.label, it.text, width)
	}
	b.WriteString(rest.String())
	if req.Reason != "" {
		fold(&b, labelWhy, SanitizeLine(req.Reason), width)
	}
	if len(key) > 0 && strings.Count(rest.String(), "\n") > 8 {
		for i, it := range key {
			label := labelBlank
			if i == 0 {
				label = labelAgain
			}
			fold(&b, label, it.text, width)
		}
	}
	return b.String()
}

func answerLine(req *policy.ApprovalRequest) string {
	always := "always for this tool 始终允许"
	if req.Grant {
		always = "grant lasting access 长期授权"
	}
	if needsConfirm(req) {
		always += " (asks you to confirm)"
	}
	return fmt.Sprintf("  [y] allow once 允许一次  [a] %s  [n] deny 拒绝  (until %s) › ", always, req.Expires.Format("15:04:05"))
}

func confirmLine(req *policy.ApprovalRequest) string {
	what := "every future call of " + SanitizeLine(req.Tool) + " without asking"
	if req.Grant {
		what = "lasting access through " + SanitizeLine(req.Tool)
	}
	return fmt.Sprintf("  Allow %s (%s)? Type always and press Enter; anything else goes back.\n"+
		"  确认始终允许请输入 always 并回车，其他输入返回。 › ", what, req.Effect)
}

// parseAnswer reads a typed answer. "a" alone means always only where no
// confirmation is needed.
func parseAnswer(req *policy.ApprovalRequest, s string) (policy.Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes", "是", "允许":
		return policy.AllowOnce, true
	case "always", "始终":
		return policy.AllowAlways, true
	case "a":
		if !needsConfirm(req) {
			return policy.AllowAlways, true
		}
	case "n", "no", "否", "拒绝":
		return policy.Refuse, true
	}
	return "", false
}

// settle discards what was typed before the prompt and while it was drawn:
// it returns once no key has arrived for settleTime, or ctx ends, with the
// number of bytes dropped.
func (r *ttyReader) settle(ctx context.Context) (int, error) {
	dropped := r.ed.in.Buffered()
	r.ed.in.Discard(dropped)
	flushInput(r.fd)
	if !canPoll {
		return dropped, nil
	}
	quietSince := time.Now()
	for time.Since(quietSince) < settleTime {
		if err := ctx.Err(); err != nil {
			return dropped, err
		}
		ok, err := readable(r.fd, min(100*time.Millisecond, settleTime-time.Since(quietSince)+time.Millisecond))
		if err != nil {
			return dropped, err
		}
		if ok {
			if _, err := r.ed.in.ReadByte(); err != nil {
				return dropped, err
			}
			n := r.ed.in.Buffered()
			r.ed.in.Discard(n)
			dropped += n + 1
			quietSince = time.Now()
		}
	}
	return dropped, nil
}

// readConfirm reads a line typed after the confirmation prompt, with
// echo and Backspace, until Enter; Ctrl-C and Esc end it empty.
func (r *ttyReader) readConfirm(ctx context.Context, out io.Writer) (string, error) {
	var line []rune
	for {
		if err := waitInput(ctx, r.fd, r.ed.in); err != nil {
			return "", err
		}
		c, _, err := r.ed.in.ReadRune()
		if err != nil {
			return "", err
		}
		switch {
		case c == '\r' || c == '\n':
			io.WriteString(out, "\r\n")
			return string(line), nil
		case c == 0x03 || c == 0x1b:
			io.WriteString(out, "\r\n")
			return "", nil
		case c == 0x7f || c == 0x08:
			if len(line) > 0 {
				line = line[:len(line)-1]
				io.WriteString(out, "\b \b")
			}
		case !hiddenRune(c) && len(line) < 64:
			line = append(line, c)
			io.WriteString(out, Sanitize(string(c)))
		}
	}
}

// approver asks on the terminal in raw mode; see the rules at the top of
// this file. It returns when the user answers or the request expires.
func (r *ttyReader) approver(scr *screen) policy.Approver {
	return func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		scr.mu.Lock()
		defer scr.mu.Unlock()
		io.WriteString(scr.out, "\n"+describeApproval(req, scr.color, r.ed.width()))
		state, err := term.MakeRaw(r.fd)
		if err != nil {
			return "", err
		}
		defer term.Restore(r.fd, state)
		expired := func(err error) (policy.Answer, error) {
			io.WriteString(scr.out, "\r\n(expired / 已过期)\r\n")
			return "", err
		}
		dropped, err := r.settle(ctx)
		if err != nil {
			return expired(err)
		}
		if dropped > 0 {
			io.WriteString(scr.out, "  (keys typed before this prompt were ignored / 提示出现前的按键已忽略)\r\n")
		}
		io.WriteString(scr.out, answerLine(req))
		for {
			if err := waitInput(ctx, r.fd, r.ed.in); err != nil {
				return expired(err)
			}
			c, _, err := r.ed.in.ReadRune()
			if err != nil {
				return "", err
			}
			switch c {
			case 0x03, 0x1b: // Ctrl-C, Esc
				c = 'n'
			case 'A':
				c = 'a'
			case 'Y':
				c = 'y'
			case 'N':
				c = 'n'
			}
			if c == 'a' && needsConfirm(req) {
				io.WriteString(scr.out, "a\r\n"+strings.ReplaceAll(confirmLine(req), "\n", "\r\n"))
				line, err := r.readConfirm(ctx, scr.out)
				if err != nil {
					return expired(err)
				}
				if a, ok := parseAnswer(req, line); ok && a == policy.AllowAlways {
					return a, nil
				}
				io.WriteString(scr.out, answerLine(req))
				continue
			}
			if a, ok := parseAnswer(req, string(c)); ok {
				io.WriteString(scr.out, string(c)+"\r\n")
				return a, nil
			}
		}
	}
}

// plainApprover asks on a pipe, reading one line.
func (p *plainReader) approver(out io.Writer) policy.Approver {
	return func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		io.WriteString(out, describeApproval(req, false, 0)+answerLine(req)+"\n")
		for {
			if err := waitInput(ctx, p.fd, p.br); err != nil {
				return "", err
			}
			line, _, err := readLine(p.br, 4<<10) // a longer line is no answer
			if a, ok := parseAnswer(req, line); ok {
				return a, nil
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					return "", errors.New("input ended before an answer")
				}
				return "", err
			}
			if strings.TrimSpace(line) == "a" {
				io.WriteString(out, "to allow always, answer always › \n")
				continue
			}
			io.WriteString(out, "answer y, a or n › \n")
		}
	}
}
