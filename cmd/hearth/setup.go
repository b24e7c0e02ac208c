package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/redact"
)

// The first run: `hearth` (chat) on a terminal with no model provider
// offers to set one up, as the web UI's onboarding does: pick one of
// config.Presets (or type an address), give the model and the key (not
// echoed), test them with one request, save them to config.json, and
// chat. Off a terminal, or when the user declines, it prints how to set
// one up and exits 2, as before.

// errSetupQuit means the user left the setup: q, Ctrl-C or Ctrl-D.
var errSetupQuit = errors.New("setup left")

// maxModelLen is the longest model name the setup accepts.
const maxModelLen = 200

// firstRun is one walk through the setup on a terminal.
type firstRun struct {
	in      *os.File // the terminal
	out     io.Writer
	dataDir string
	presets []config.Preset
	http    *http.Client // nil: the llm client's own
	secrets *redact.Secrets
	pending []byte // keys typed while a test request ran
}

// setupStep is where the setup goes next.
type setupStep int

const (
	stepPick setupStep = iota
	stepAddress
	stepModel
	stepKey
	stepTest
)

// offerSetup runs the first-run setup for a's chat and makes the source
// it saves current. It returns 0 when chat can start, else the exit code
// (2, with how to configure a provider, when the user left).
func offerSetup(ctx context.Context, a *app.App, in *os.File, out, stderr io.Writer) int {
	r := &firstRun{in: in, out: out, dataDir: a.DataDir, presets: config.Presets(), http: a.Sources.HTTP, secrets: a.Sources.Secrets()}
	src, err := r.run(ctx)
	switch {
	case errors.Is(err, errSetupQuit):
		fmt.Fprintf(stderr, "\n%s\n", terminal.NoProviderMessage(filepath.Join(a.DataDir, config.FileName)))
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "hearth: %v\n", err)
		return 1
	}
	a.Sources.Put(src)
	if err := a.Sources.SetSource(src.Name); err != nil {
		fmt.Fprintf(stderr, "hearth: %v\n", err)
		return 1
	}
	return 0
}

// run walks the user through the setup and returns the source saved.
// The terminal stays in raw mode throughout, so that nothing typed ahead
// (a key pasted before its prompt) is echoed by the terminal, and Ctrl-C
// leaves with the terminal as it was (a cooked read killed by the signal
// could leave echo off).
func (r *firstRun) run(ctx context.Context) (llm.Source, error) {
	fd := int(r.in.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return llm.Source{}, fmt.Errorf("setting up the terminal: %w", err)
	}
	defer term.Restore(fd, old)
	out := r.out
	r.out = crlfWriter{out}
	defer func() { r.out = out }()
	fmt.Fprint(r.out, "No model provider is configured yet: let's set one up. / 还没有配置模型服务，现在来设置一个。\n"+
		"(q or Ctrl-C leaves / 输入 q 或按 Ctrl-C 退出)\n")
	var p config.Preset
	var src llm.Source
	haveKey := false // the key was asked for this address
	for step := stepPick; ; {
		switch step {
		case stepPick:
			p, err = r.pick()
			src, haveKey = llm.Source{Name: p.Name, BaseURL: p.BaseURL, API: p.API}, false
			step = stepModel
			if p.BaseURL == "" {
				step = stepAddress
			}
		case stepAddress:
			// A key given for another address is not sent to this one.
			src.BaseURL, err = r.address()
			src.APIKey, haveKey, step = "", false, stepModel
		case stepModel:
			src.Model, err = r.model(p, src.BaseURL)
			step = stepKey
			if haveKey {
				step = stepTest
			}
		case stepKey:
			src.APIKey, err = r.key(p)
			haveKey, step = true, stepTest
		case stepTest:
			if step, err = r.test(ctx, p, src); err == nil && step == stepTest {
				return src, r.save(src)
			}
		}
		if err != nil {
			return llm.Source{}, err
		}
	}
}

// other is the last choice of the list: an address typed in.
var other = config.Preset{Name: "custom", Label: "Another OpenAI-compatible address", LabelZH: "其他兼容 OpenAI 接口的地址", NeedsKey: false}

// pick asks which provider.
func (r *firstRun) pick() (config.Preset, error) {
	list := append(r.presets[:len(r.presets):len(r.presets)], other)
	fmt.Fprintln(r.out)
	for i, p := range list {
		fmt.Fprintf(r.out, "  %2d  %-36s %s\n", i+1, p.Label, p.LabelZH)
	}
	for {
		s, err := r.ask(fmt.Sprintf("Provider, 1-%d / 选择模型服务（1-%d）: ", len(list), len(list)), "", true)
		if err != nil {
			return config.Preset{}, err
		}
		var n int
		if _, err := fmt.Sscanf(s, "%d", &n); err == nil && n >= 1 && n <= len(list) && fmt.Sprint(n) == s {
			return list[n-1], nil
		}
		fmt.Fprintf(r.out, "Type a number from 1 to %d. / 请输入 1 到 %d 之间的数字。\n", len(list), len(list))
	}
}

// address asks for an OpenAI-compatible base address.
func (r *firstRun) address() (string, error) {
	for {
		s, err := r.ask("Address, usually ending in /v1 / 地址（通常以 /v1 结尾）: ", "", true)
		if err != nil {
			return "", err
		}
		if err := config.CheckBaseURL(s); err != nil {
			fmt.Fprintf(r.out, "%v\n", err)
			continue
		}
		return s, nil
	}
}

// model asks for the model, the preset's or the host's default offered.
func (r *firstRun) model(p config.Preset, baseURL string) (string, error) {
	def := p.Model
	if def == "" {
		def = config.GuessModel(baseURL)
	}
	prompt := fmt.Sprintf("Model / 模型 [%s]: ", def)
	if def == "" {
		hint := p.ModelHint
		if hint == "" {
			hint = "qwen3:8b"
		}
		prompt = fmt.Sprintf("Model, such as %s / 模型（例如 %s）: ", hint, hint)
	}
	for {
		s, err := r.ask(prompt, def, true)
		if err != nil {
			return "", err
		}
		switch {
		case s == "":
			fmt.Fprint(r.out, "A model name is needed: the one the server serves. / 需要模型名。\n")
		case len(s) > maxModelLen || strings.IndexFunc(s, func(c rune) bool { return !unicode.IsPrint(c) }) >= 0:
			fmt.Fprintf(r.out, "A model name is printable text on one line, at most %d characters. / 模型名过长或含有不可打印字符。\n", maxModelLen)
		default:
			return s, nil
		}
	}
}

// key asks for the API key without echoing it; a local server needs none.
func (r *firstRun) key(p config.Preset) (string, error) {
	if p.BaseURL != "" && !p.NeedsKey {
		return "", nil
	}
	if p.KeyURL != "" {
		fmt.Fprintf(r.out, "Make a key at / 在这里创建 API Key: %s\n", p.KeyURL)
	}
	prompt := "API key, not shown as you type / API Key（输入时不显示）: "
	if !p.NeedsKey {
		prompt = "API key, not shown; Enter for none / API Key（不显示；没有就直接回车）: "
	}
	for {
		s, err := r.ask(prompt, "", false)
		if err != nil {
			return "", err
		}
		r.secrets.Add(s) // masked from here on, in every message and log
		switch err := config.CheckAPIKey(s); {
		case err != nil:
			fmt.Fprintf(r.out, "%v\n", err)
		case s == "" && p.NeedsKey:
			fmt.Fprint(r.out, "This provider needs a key. / 这个模型服务需要 API Key。\n")
		default:
			return s, nil
		}
	}
}

// test sends src one request and says what came of it: stepTest when it
// works, else the step that asks again for what is wrong. Ctrl-C while it
// waits leaves the setup.
func (r *firstRun) test(ctx context.Context, p config.Preset, src llm.Source) (setupStep, error) {
	fmt.Fprintf(r.out, "Testing %s at %s … / 正在测试…\n", src.Model, src.BaseURL)
	start := time.Now()
	err := r.probe(ctx, src)
	if errors.Is(err, errSetupQuit) {
		return stepTest, err
	}
	if err == nil {
		fmt.Fprintf(r.out, "It works (%.1f s). / 可以使用。\n", time.Since(start).Seconds())
		return stepTest, nil
	}
	var apiErr *llm.APIError
	switch {
	case errors.Is(err, llm.ErrAuth):
		fmt.Fprintf(r.out, "%v\nThe provider rejected the key: paste it again. / 模型服务拒绝了这个 API Key，请重新粘贴。\n", err)
		return stepKey, nil
	case errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusBadRequest) &&
		strings.Contains(strings.ToLower(apiErr.Message), "model"):
		fmt.Fprintf(r.out, "%v\nThe model %q may not exist there: give another. / 模型名可能不对，请重新输入。\n", err, src.Model)
		return stepModel, nil
	}
	fmt.Fprintf(r.out, "%s\nCheck the address, or pick another provider. / 请检查地址，或选择其他模型服务。\n", r.secrets.All(terminal.Sanitize(err.Error())))
	if p.BaseURL == "" {
		return stepAddress, nil
	}
	return stepPick, nil
}

// probe runs llm.Probe, keeping what is typed meanwhile for the next
// prompt; Ctrl-C cancels it with errSetupQuit.
func (r *firstRun) probe(ctx context.Context, src llm.Source) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- llm.Probe(ctx, src, r.http, r.secrets.All) }()
	for {
		select {
		case err := <-done:
			return err
		default:
		}
		c, ok, err := readByteWithin(r.in, 50*time.Millisecond)
		switch {
		case err != nil:
			cancel()
			<-done
			return fmt.Errorf("reading from the terminal: %w", err)
		case ok && c == 0x03:
			cancel()
			<-done
			return errSetupQuit
		case ok:
			r.pending = append(r.pending, c)
		}
	}
}

// save writes src to config.json (mode 0600, replaced at once) as the
// source to start with.
func (r *firstRun) save(src llm.Source) error {
	sc := config.SourceConfig{BaseURL: src.BaseURL, Model: src.Model, APIKey: src.APIKey, API: src.API}
	if err := config.PutSource(r.dataDir, src.Name, sc); err != nil {
		return err
	}
	if err := config.SetCurrentSource(r.dataDir, src.Name); err != nil {
		return err
	}
	fmt.Fprintf(r.out, "Saved as source %q in %s. / 已保存。\n\n", src.Name, filepath.Join(r.dataDir, config.FileName))
	return nil
}

// ask shows prompt and reads a line, echoed or not; def is the answer to
// an empty line. "q" leaves, at the key's prompt too (no key is "q").
func (r *firstRun) ask(prompt, def string, echo bool) (string, error) {
	fmt.Fprint(r.out, prompt)
	s, err := r.readLine(echo)
	fmt.Fprintln(r.out)
	if err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	switch {
	case s == "q" || s == "Q":
		return "", errSetupQuit
	case s == "":
		return def, nil
	}
	return s, nil
}

// readByte returns the next key typed: one kept from a test request's
// wait, else one read from the terminal.
func (r *firstRun) readByte() (byte, error) {
	if len(r.pending) > 0 {
		c := r.pending[0]
		r.pending = r.pending[1:]
		return c, nil
	}
	b := make([]byte, 1)
	for {
		n, err := r.in.Read(b)
		if n == 1 {
			return b[0], nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// readLine reads a line from the terminal, which is in raw mode, echoing
// it or not. Backspace and Ctrl-U edit; escape sequences (arrow keys) are
// dropped; Ctrl-C, and Ctrl-D on an empty line, are errSetupQuit.
func (r *firstRun) readLine(echo bool) (string, error) {
	var line []byte
	esc := 0 // 1: after ESC; 2: in a CSI sequence
	show := func(s string) {
		if echo {
			io.WriteString(r.out, s)
		}
	}
	for {
		c, err := r.readByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", errSetupQuit
			}
			return "", fmt.Errorf("reading from the terminal: %w", err)
		}
		switch {
		case esc == 1:
			esc = 0
			if c == '[' || c == 'O' {
				esc = 2
			}
		case esc == 2:
			if c >= 0x40 && c <= 0x7e {
				esc = 0
			}
		case c == 0x1b:
			esc = 1
		case c == '\r' || c == '\n':
			return string(line), nil
		case c == 0x03 || c == 0x04 && len(line) == 0:
			return "", errSetupQuit
		case c == 0x7f || c == 0x08:
			if len(line) > 0 {
				_, size := utf8.DecodeLastRune(line)
				line = line[:len(line)-size]
				show("\b \b")
			}
		case c == 0x15: // Ctrl-U
			show(strings.Repeat("\b \b", utf8.RuneCount(line)))
			line = line[:0]
		case c >= 0x20:
			line = append(line, c)
			show(string(line[len(line)-1:])) // a byte: the terminal joins a character's
		}
	}
}

// crlfWriter ends lines with CR LF, for a terminal in raw mode.
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(p []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
