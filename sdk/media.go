package sdk

import (
	"context"
	"strings"
)

// ContentBlock is one block of multimodal content, HomeAgent's (OpenAI's
// form): Type "text" with Text, "image_url" with ImageURL, "audio_url"
// with AudioURL.
type ContentBlock struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
	AudioURL *AudioURL `json:"audio_url,omitempty"`
}

// ImageURL is an image block's address (an http(s) or data: URL).
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// AudioURL is an audio block's address.
type AudioURL struct {
	URL string `json:"url"`
}

// mediaText folds blocks into the input's text, which is what is stored
// and what a model that does not accept images reads: text blocks as
// paragraphs, an image or audio block as a line naming its URL
// ("[image: https://...]"), a data: URL as its kind alone, since its
// bytes would swamp the conversation. The image blocks themselves travel
// in Injection.Media (mediaBlocks).
func mediaText(text string, blocks []ContentBlock) string {
	parts := []string{}
	if text != "" {
		parts = append(parts, text)
	}
	for _, b := range blocks {
		switch {
		case b.Type == "text" && b.Text != "":
			parts = append(parts, b.Text)
		case b.ImageURL != nil:
			parts = append(parts, mediaLine("image", b.ImageURL.URL))
		case b.AudioURL != nil:
			parts = append(parts, mediaLine("audio", b.AudioURL.URL))
		}
	}
	return strings.Join(parts, "\n\n")
}

// mediaBlocks returns the image and audio blocks of blocks, the ones
// Injection.Media carries (text blocks are in the text already).
func mediaBlocks(blocks []ContentBlock) []ContentBlock {
	var out []ContentBlock
	for _, b := range blocks {
		if b.ImageURL != nil || b.AudioURL != nil {
			out = append(out, b)
		}
	}
	return out
}

func mediaLine(kind, url string) string {
	if url == "" || strings.HasPrefix(url, "data:") {
		return "[" + kind + "]"
	}
	return "[" + kind + ": " + url + "]"
}

// InjectInputSyncOpts is InjectInputSync with options (see InjectOptions).
func (s *PluginSDK) InjectInputSyncOpts(source, channel, text string, opts InjectOptions) string {
	out, err := s.b.InjectSync(context.Background(), s.name, Injection{Source: s.name, Channel: channel, Text: text, NoMemory: opts.NoMemory})
	if err != nil {
		s.Logger().Warn("injected input failed", "channel", channel, "err", err)
		return ""
	}
	return out
}

// InjectInputMedia queues text with media blocks for channel's session
// (see mediaText for how blocks reach the model).
func (s *PluginSDK) InjectInputMedia(source, channel, text string, blocks []ContentBlock) {
	s.InjectInputMediaOpts(source, channel, text, blocks, InjectOptions{})
}

// InjectInputMediaOpts is InjectInputMedia with options.
func (s *PluginSDK) InjectInputMediaOpts(source, channel, text string, blocks []ContentBlock, opts InjectOptions) {
	s.inject(Injection{Channel: channel, Text: mediaText(text, blocks), Media: mediaBlocks(blocks), NoMemory: opts.NoMemory})
}

// InjectInputMediaSync is InjectInputMedia that waits for the answer, as
// InjectInputSync does.
func (s *PluginSDK) InjectInputMediaSync(source, channel, text string, blocks []ContentBlock) string {
	return s.InjectInputMediaSyncOpts(source, channel, text, blocks, InjectOptions{})
}

// InjectInputMediaSyncOpts is InjectInputMediaSync with options.
func (s *PluginSDK) InjectInputMediaSyncOpts(source, channel, text string, blocks []ContentBlock, opts InjectOptions) string {
	in := Injection{Source: s.name, Channel: channel, Text: mediaText(text, blocks), Media: mediaBlocks(blocks), NoMemory: opts.NoMemory}
	out, err := s.b.InjectSync(context.Background(), s.name, in)
	if err != nil {
		s.Logger().Warn("injected input failed", "channel", channel, "err", err)
		return ""
	}
	return out
}

// InjectInterruptMedia is InjectInterruptText with media blocks.
func (s *PluginSDK) InjectInterruptMedia(source, channel, text string, blocks []ContentBlock) {
	s.InjectInterruptMediaOpts(source, channel, text, blocks, InjectOptions{})
}

// InjectInterruptMediaOpts is InjectInterruptMedia with options.
func (s *PluginSDK) InjectInterruptMediaOpts(source, channel, text string, blocks []ContentBlock, opts InjectOptions) {
	s.inject(Injection{Channel: channel, Text: mediaText(text, blocks), Media: mediaBlocks(blocks), Interrupt: true, NoMemory: opts.NoMemory})
}
