// Package timeplugin is Hearth's "time" plugin: the tool time__now, which
// tells the current time in any IANA time zone, and a pre_action handler
// that puts the current time into the model's context each turn, as the
// HomeAgent SDK document's example does. It is written only against sdk/.
package timeplugin

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/sdk"
)

// Name is the plugin's registered name.
const Name = "time"

func init() { sdk.RegisterFactory(Name, New) }

// Plugin is the time plugin.
type Plugin struct {
	name string
	now  func() time.Time
	zone *time.Location
}

var (
	_ sdk.Plugin           = (*Plugin)(nil)
	_ sdk.ManifestProvider = (*Plugin)(nil)
)

// New is the plugin's factory. config may set "zone" (an IANA name) as the
// default zone; the host's local zone is used otherwise.
func New(name string, config map[string]any) (sdk.Plugin, error) {
	p := &Plugin{name: name, now: time.Now, zone: localZone()}
	if z, ok := config["zone"].(string); ok && z != "" {
		loc, err := time.LoadLocation(z)
		if err != nil {
			return nil, fmt.Errorf("time plugin: unknown zone %q: %w", z, err)
		}
		p.zone = loc
	}
	return p, nil
}

// localZone returns the host's zone under its IANA name where it can be
// found (TZ, or the /etc/localtime link), so the model reads
// "Asia/Shanghai" rather than "Local".
func localZone() *time.Location {
	name := os.Getenv("TZ")
	if name == "" {
		if target, err := os.Readlink("/etc/localtime"); err == nil {
			if _, after, ok := strings.Cut(target, "zoneinfo/"); ok {
				name = after
			}
		}
	}
	if name != "" {
		if loc, err := time.LoadLocation(strings.TrimPrefix(name, ":")); err == nil {
			return loc
		}
	}
	return time.Local
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return p.name }

// NowInput is the input of time__now.
type NowInput struct {
	Zone string `json:"zone,omitempty" jsonschema:"IANA time zone such as Asia/Shanghai or America/New_York; the user's zone when omitted"`
}

// NowOutput is the result of time__now.
type NowOutput struct {
	Time    string `json:"time"`    // RFC 3339 with offset
	Local   string `json:"local"`   // 2006-01-02 15:04:05
	Weekday string `json:"weekday"` // Monday
	Zone    string `json:"zone"`    // the IANA name used
	Unix    int64  `json:"unix"`
}

// Start registers time__now and the pre_action handler.
func (p *Plugin) Start(s *sdk.PluginSDK) error {
	err := sdk.AddTool(s, sdk.ToolDef{
		Name:        "now",
		Title:       "当前时间",
		Description: "Get the current date and time, optionally in a given IANA time zone. 获取当前日期和时间。",
		Effect:      sdk.EffectRead,
	}, p.nowTool)
	if err != nil {
		return err
	}
	s.RegisterStage(sdk.StagePreAction, p.injectTime)
	return nil
}

// Manifest describes the plugin.
func (p *Plugin) Manifest() sdk.Manifest {
	return sdk.Manifest{
		ID: p.name, Name: "时间", Description: "告诉助手现在的日期和时间。", Version: "1.0.0",
		Icon: "clock", Core: true, Scopes: []string{},
		I18n: &sdk.ManifestI18n{En: &sdk.Translation{Name: "Time", Description: "Tells the agent the current date and time."}},
	}
}

// Stop does nothing: the plugin holds no resources.
func (p *Plugin) Stop() error { return nil }

func (p *Plugin) nowTool(_ context.Context, _ *sdk.ToolContext, in NowInput) (NowOutput, error) {
	loc := p.zone
	if in.Zone != "" {
		l, err := time.LoadLocation(in.Zone)
		if err != nil {
			return NowOutput{}, fmt.Errorf("unknown time zone %q; use an IANA name such as Asia/Shanghai", in.Zone)
		}
		loc = l
	}
	t := p.now().In(loc)
	return NowOutput{
		Time: t.Format(time.RFC3339), Local: t.Format(time.DateTime),
		Weekday: t.Weekday().String(), Zone: loc.String(), Unix: t.Unix(),
	}, nil
}

var weekdaysZH = [...]string{"周日", "周一", "周二", "周三", "周四", "周五", "周六"}

// injectTime appends the current time as a system message, so the model
// can answer "what day is it" without a tool call. It goes last, after the
// history, so the cacheable prefix of the prompt does not change.
func (p *Plugin) injectTime(ctx *sdk.StageContext) error {
	t := p.now().In(p.zone)
	ctx.Lock()
	ctx.ContextMsgs = append(ctx.ContextMsgs, map[string]any{
		"role": "system",
		"content": fmt.Sprintf("当前时间 (current time): %s %s (%s, %s)",
			t.Format("2006-01-02 15:04"), weekdaysZH[t.Weekday()], t.Weekday(), p.zone),
	})
	ctx.Unlock()
	return nil
}
