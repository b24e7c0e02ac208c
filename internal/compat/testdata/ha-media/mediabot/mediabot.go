// Package mediabot is the compat suite's HomeAgent media plugin, our own,
// shaped like HomeAgent's media patterns: a channel that relays a
// message with images and audio (InjectInputMediaSync, InjectInputMedia)
// and tools that show the model pictures through SetToolBlocks. The same
// plugin runs compiled in and as a child process (../main.go).
package mediabot

import (
	"fmt"

	"github.com/hearth-agent/hearth/sdk"
)

// Pixel is a one-pixel PNG as a data: URL.
const Pixel = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// Plugin is mediabot.
type Plugin struct {
	name string
	sdk  *sdk.PluginSDK
}

// New returns the plugin under name.
func New(name string, _ map[string]any) (sdk.Plugin, error) { return &Plugin{name: name}, nil }

// Name returns the plugin's name.
func (p *Plugin) Name() string { return p.name }

// Stop stops nothing.
func (p *Plugin) Stop() error { return nil }

// Start registers the channel and the tools.
func (p *Plugin) Start(s *sdk.PluginSDK) error {
	p.sdk = s
	if err := s.RegisterInputChannel(p.name, sdk.ChannelDef{}); err != nil {
		return err
	}
	// relay: a person's message with pictures and a voice note, answered
	// synchronously (InjectInputMediaSync).
	if err := s.RegisterTool("relay", sdk.ToolDef{Description: "relay a message with media"}, func(args map[string]any) (any, error) {
		blocks := []sdk.ContentBlock{
			{Type: "text", Text: "what is in these?"},
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "https://example.invalid/a.png"}},
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: Pixel}},
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "ftp://example.invalid/x.png"}},
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "https://example.invalid/b.png"}},
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "https://example.invalid/c.png"}},
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "https://example.invalid/d.png"}},
			{Type: "audio_url", AudioURL: &sdk.AudioURL{URL: "https://example.invalid/voice.ogg"}},
		}
		return p.sdk.InjectInputMediaSync(p.name, p.name, "from alice", blocks), nil
	}); err != nil {
		return err
	}
	// snap: a camera tool that shows the model its picture and a remote
	// one (SetToolBlocks); a block of another scheme is named only.
	if err := s.RegisterTool("snap", sdk.ToolDef{Description: "take a picture"}, func(args map[string]any) (any, error) {
		p.sdk.SetToolBlocks([]sdk.ContentBlock{
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: Pixel}},
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "https://example.invalid/far.png", Detail: "auto"}},
			{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "file:///etc/passwd"}},
		})
		return map[string]any{"snapped": true}, nil
	}); err != nil {
		return err
	}
	// doorbell: a camera's ring, as an interrupt with its snapshot
	// (InjectInterruptMediaOpts), and a follow-up (InjectInputMedia).
	if err := s.RegisterTool("doorbell", sdk.ToolDef{Description: "ring"}, func(args map[string]any) (any, error) {
		shot := []sdk.ContentBlock{{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "https://example.invalid/door.jpg"}}}
		p.sdk.InjectInterruptMediaOpts(p.name, p.name, "someone rang", shot, sdk.InjectOptions{NoMemory: true})
		p.sdk.InjectInputMedia(p.name, p.name, "still there", shot)
		return "rung", nil
	}); err != nil {
		return err
	}
	// plain: a tool that sets no blocks; its result never carries snap's.
	return s.RegisterTool("plain", sdk.ToolDef{Description: "no pictures"}, func(args map[string]any) (any, error) {
		return fmt.Sprintf("plain %v", args["n"]), nil
	})
}
