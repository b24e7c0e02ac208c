package app

import (
	"context"
	"errors"
	"time"

	"github.com/hearth-agent/hearth/internal/media"
)

// pluginSpeech transcribes voice notes with a PKU plugin's speech
// provider (config.json's speech.provider), through the plugin folder
// manager, which is made after the kernel.
type pluginSpeech struct {
	a                  *App
	id, baseURL, model string
	key                string
	maxBytes           int64
	timeout            time.Duration
}

func (p *pluginSpeech) Transcribe(ctx context.Context, audio media.Audio) (string, error) {
	if p.a.Plugins == nil {
		return "", errors.New("speech " + p.id + ": plugins are not loaded in this process")
	}
	sp, err := p.a.Plugins.Speech(p.id, p.baseURL, p.model, p.key)
	if err != nil {
		return "", err
	}
	sp.MaxBytes, sp.Timeout = p.maxBytes, p.timeout
	return sp.Transcribe(ctx, audio)
}

// pluginOCR reads images with a PKU plugin's OCR provider (config.json's
// ocr.provider).
type pluginOCR struct {
	a                *App
	id, baseURL, key string
	maxPages         int
	timeout          time.Duration
}

func (p *pluginOCR) Recognize(ctx context.Context, doc media.Document) (string, error) {
	if p.a.Plugins == nil {
		return "", errors.New("ocr " + p.id + ": plugins are not loaded in this process")
	}
	o, err := p.a.Plugins.OCR(p.id, p.baseURL, p.key)
	if err != nil {
		return "", err
	}
	o.MaxPages, o.Timeout = p.maxPages, p.timeout
	return o.Recognize(ctx, doc)
}
