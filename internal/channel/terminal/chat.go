package terminal

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/term"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
)

// Channel is the channel name of terminal sessions.
const Channel = names.ChannelTerminal

// Options configure Chat and Ask. A nil *Options means all defaults.
type Options struct {
	In       io.Reader // nil means os.Stdin
	Out, Err io.Writer // nil means os.Stdout, os.Stderr
	// ChatID names the conversation; chat's default is "" (the one
	// terminal conversation), ask's a fresh one per call.
	ChatID        string
	ShowReasoning bool
	// HistoryFile keeps the input history; empty keeps none.
	HistoryFile string
	// Sources, when set, enables /sources and /source.
	Sources *llm.Sources
	// ConfigPath is shown in error messages.
	ConfigPath string
	// Usage makes Ask print the turn's tokens and price (UsageLine) on
	// Err after the answer; chat always shows them.
	Usage bool
	// Plugins, when set, describes the process plugins for /plugins.
	Plugins func() string
	// Prompts, when set with GetPrompt, lists the prompts of MCP servers,
	// offered as the commands /<plugin>:<name> (see prompts.go).
	Prompts func() []Prompt
	// GetPrompt returns the text of plugin's prompt name with args, sent
	// as the user's message.
	GetPrompt func(ctx context.Context, plugin, name string, args map[string]string) (string, error)
}

// withDefaults returns a copy of o (the zero Options for nil) with the
// streams it leaves nil set to the process's.
func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.In == nil {
		v.In = os.Stdin
	}
	if v.Out == nil {
		v.Out = os.Stdout
	}
	if v.Err == nil {
		v.Err = os.Stderr
	}
	return v
}

const (
	prompt     = "› "
	contPrompt = "… "
)

// lineReader reads one whole message at a time.
type lineReader interface {
	read() (string, error)
	close()
}

// Chat runs an interactive conversation until the input ends (Ctrl-D) or
// /exit. Answers to inputs that plugins inject are shown as notifications,
// above the message being typed. On a terminal it edits lines, keeps history, and reads pasted
// multi-line text as one message; a line ending in \ continues on the next
// line. Ctrl-C while the agent answers interrupts the answer.
func Chat(ctx context.Context, k Agent, opts *Options) error {
	o := opts.withDefaults()
	var r lineReader
	var approver policy.Approver
	var askArg func(label string) (string, error) // nil: arguments cannot be asked
	scr := &screen{out: o.Out}
	if tr, ok := newTTYReader(o.In, o.Out, loadHistory(o.HistoryFile)); ok {
		r, scr.color, scr.ed = tr, true, tr.ed
		tr.ed.mu = &scr.mu
		tr.ed.complete = func(word string) []string { return completions(word, o.prompts()) }
		askArg = tr.askLine
		approver = tr.approver(scr)
		// Between messages the terminal neither echoes nor line-edits
		// input, so keys typed while an answer streams wait, unchanged,
		// for the editor (which switches to raw mode on top of this).
		defer quietInput(tr.fd)()
	} else {
		pr := newPlainReader(o.In)
		r = pr
		if pr.fd >= 0 {
			approver = pr.approver(scr)
		}
	}
	defer r.close()
	// Answers to what plugins inject, here or on channels nobody else
	// shows, appear as notifications.
	k.SetSink(Channel, scr.sink)
	k.SetSink("", scr.sink)
	defer k.SetSink(Channel, nil)
	defer k.SetSink("", nil)

	rend := &renderer{out: scr, color: scr.color, showReasoning: o.ShowReasoning, streamText: true}
	if src, ok := currentSource(o.Sources); ok {
		fmt.Fprintf(o.Out, "Hearth · %s · model %s · /help\n", src.Name, orUnset(src.Model))
	}
	for {
		msg, err := r.read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, ErrMessageTooLong) {
			fmt.Fprintln(o.Err, err)
			continue
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(msg) == "" {
			continue
		}
		untrusted := "" // where msg came from when it is a third party's
		if strings.HasPrefix(msg, "/") && !strings.Contains(msg, "\n") && isPromptCommand(strings.Fields(msg)[0]) {
			text, origin, err := promptText(ctx, o, msg, askArg)
			if err != nil {
				fmt.Fprintln(o.Err, Sanitize(err.Error()))
				continue
			}
			fmt.Fprintln(o.Out, rend.style(dim, promptEcho(text)))
			msg, untrusted = text, origin
		} else if strings.HasPrefix(msg, "/") && !strings.Contains(msg, "\n") {
			quit, err := command(ctx, k, o, rend, strings.Fields(msg))
			if err != nil {
				fmt.Fprintln(o.Err, Sanitize(err.Error()))
			}
			if quit {
				return nil
			}
			continue
		}
		turnCtx, stop := signal.NotifyContext(ctx, os.Interrupt)
		lr := &liveRenderer{r: rend}
		rend.thinking()
		stopTicks := func() {}
		if rend.color {
			stopTicks = lr.run()
		}
		out := k.Ask(turnCtx, kernel.Input{
			Injection: sdk.Injection{Source: "terminal", Channel: Channel, ChatID: o.ChatID, UserID: "owner", Text: msg},
			OnEvent:   lr.event,
			Approver:  lr.approver(approver),
			Untrusted: untrusted,
		})
		stop()
		stopTicks()
		rend.clearProgress()
		if out.Err == nil && !out.Interrupted {
			rend.usage(out.Usage, out.Cost)
		}
		if out.Err != nil && !out.Interrupted {
			src, _ := currentSource(o.Sources)
			fmt.Fprintln(o.Err, rend.style(red, Explain(out.Err, src, o.ConfigPath)))
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func command(ctx context.Context, k Agent, o Options, rend *renderer, args []string) (quit bool, err error) {
	switch args[0] {
	case "/exit", "/quit":
		return true, nil
	case "/new":
		if err := k.ResetSession(ctx, Channel, o.ChatID); err != nil {
			return false, fmt.Errorf("could not start over: %w", err)
		}
		fmt.Fprintln(o.Out, "Started a new conversation. / 已开始新的对话。")
	case "/reasoning":
		rend.showReasoning = len(args) < 2 || args[1] != "off"
		fmt.Fprintf(o.Out, "reasoning shown: %v\n", rend.showReasoning)
	case "/sources":
		if o.Sources == nil {
			return false, errors.New("no sources")
		}
		cur := o.Sources.CurrentSource()
		for _, n := range o.Sources.ListSources() {
			mark := " "
			if n == cur {
				mark = "*"
			}
			fmt.Fprintf(o.Out, "%s %s\n", mark, n)
		}
	case "/source":
		if o.Sources == nil || len(args) < 2 {
			return false, errors.New("usage: /source NAME (see /sources)")
		}
		if err := o.Sources.SetSource(args[1]); err != nil {
			return false, err
		}
		src, _ := o.Sources.Current()
		fmt.Fprintf(o.Out, "now using %s (model %s)\n", src.Name, orUnset(src.Model))
	case "/plugins":
		if o.Plugins == nil {
			return false, errors.New("no plugin manager")
		}
		fmt.Fprint(o.Out, Sanitize(o.Plugins()))
	case "/help":
		fmt.Fprint(o.Out, `/new              start a new conversation (forget this one)
/sources          list model sources; /source NAME switches
/reasoning on|off show or hide the model's reasoning
/plugins          process plugins: state, restarts, last error
/exit             quit (or Ctrl-D)
End a line with \ to continue on the next line; pasted text stays one message.
Tab completes a command.
`)
		writePromptHelp(o.Out, o.prompts())
	default:
		return false, fmt.Errorf("unknown command %s (try /help)", args[0])
	}
	return false, nil
}

func currentSource(s *llm.Sources) (llm.Source, bool) {
	if s == nil {
		return llm.Source{}, false
	}
	return s.Current()
}

func orUnset(s string) string {
	if s == "" {
		return "(provider default)"
	}
	return s
}

// plainReader reads messages from a pipe: one per line, with \ joining
// lines.
type plainReader struct {
	br *bufio.Reader
	fd int // for waiting with a deadline; -1 when unknown
}

func newPlainReader(in io.Reader) *plainReader {
	p := &plainReader{br: bufio.NewReaderSize(in, 64<<10), fd: -1}
	if f, ok := in.(*os.File); ok {
		p.fd = int(f.Fd())
	}
	return p
}

// MaxMessageBytes bounds a message read from a pipe (its lines joined by
// \ together): more than any model's context window holds. A longer one
// is skipped to its end and refused with ErrMessageTooLong, and reading
// goes on with the next message, so one runaway line neither fills the
// memory nor ends the conversation.
const MaxMessageBytes = 1 << 20

// ErrMessageTooLong is read's error for a message over MaxMessageBytes.
var ErrMessageTooLong = fmt.Errorf("message longer than %d MiB: not sent (消息过长，未发送)", MaxMessageBytes>>20)

func (p *plainReader) read() (string, error) {
	var lines []string
	size, tooLong := 0, false
	for {
		line, long, err := readLine(p.br, MaxMessageBytes-size)
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		tooLong = tooLong || long
		if errors.Is(err, io.EOF) && line == "" && !long {
			if tooLong {
				return "", ErrMessageTooLong
			}
			if len(lines) > 0 {
				return strings.Join(lines, "\n"), nil
			}
			return "", io.EOF
		}
		line = strings.TrimRight(line, "\r\n")
		if cont, ok := strings.CutSuffix(line, `\`); ok && err == nil {
			lines = append(lines, cont)
			size += len(cont) + 1 // the message holds it and a newline
			continue
		}
		if tooLong {
			return "", ErrMessageTooLong
		}
		return strings.Join(append(lines, line), "\n"), nil
	}
}

// lineEnd is how many bytes of the line end ("\n" or "\r\n") close
// frag, read after b.
func lineEnd(b, frag []byte) int {
	if !bytes.HasSuffix(frag, []byte("\n")) {
		return 0
	}
	if bytes.HasSuffix(frag, []byte("\r\n")) || (len(frag) == 1 && bytes.HasSuffix(b, []byte("\r"))) {
		return 2
	}
	return 1
}

// readLine reads a line, its line end included, of at most limit bytes
// without it. A longer one is read to its end and dropped: long is true, and line is
// "\\" when the dropped line ended in \ (the message goes on), else "".
func readLine(br *bufio.Reader, limit int) (line string, long bool, err error) {
	var b []byte
	var last byte // a long line's last byte before its line end
	for {
		frag, err := br.ReadSlice('\n')
		if !long && len(b)+len(frag)-lineEnd(b, frag) > max(limit, 0) {
			long, b = true, nil
		}
		if long {
			if t := bytes.TrimRight(frag, "\r\n"); len(t) > 0 {
				last = t[len(t)-1]
			}
		} else {
			b = append(b, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long && last == '\\' {
			return `\`, true, err
		}
		return string(b), long, err
	}
}

func (p *plainReader) close() {}

// ttyReader reads messages on a terminal with the line editor, switching
// the terminal to raw mode only while a message is being typed.
type ttyReader struct {
	fd  int
	out io.Writer
	ed  *editor
}

func newTTYReader(in io.Reader, out io.Writer, hist *history) (*ttyReader, bool) {
	inF, ok1 := in.(*os.File)
	outF, ok2 := out.(*os.File)
	if !ok1 || !ok2 || !term.IsTerminal(int(inF.Fd())) || !term.IsTerminal(int(outF.Fd())) {
		return nil, false
	}
	r := &ttyReader{fd: int(inF.Fd()), out: outF}
	r.ed = &editor{
		in: bufio.NewReader(inF), out: outF, hist: hist,
		prompt: prompt, cont: contPrompt,
		width: func() int {
			w, _, err := term.GetSize(int(outF.Fd()))
			if err != nil {
				return 80
			}
			return w
		},
	}
	io.WriteString(outF, "\x1b[?2004h") // bracketed paste on
	return r, true
}

func (r *ttyReader) read() (string, error) {
	state, err := term.MakeRaw(r.fd)
	if err != nil {
		return "", fmt.Errorf("terminal: %w", err)
	}
	defer term.Restore(r.fd, state)
	for {
		msg, err := r.ed.readMessage()
		if errors.Is(err, errCleared) {
			continue
		}
		return msg, err
	}
}

func (r *ttyReader) close() { io.WriteString(r.out, "\x1b[?2004l") }
