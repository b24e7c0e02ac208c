package kernel

import (
	"github.com/hearth-agent/hearth/internal/llm"
)

// imageTokens is what one image is counted as when fitting a request into
// the context window: about what the providers charge for a picture of
// ordinary size (OpenAI's high-detail tiles, Qwen-VL's default).
const imageTokens = 1000

// imagesIntro opens the user message that carries the tools' images.
const imagesIntro = "Images the tools returned:"

// imageAccepter is implemented by a provider that knows whether its model
// accepts images (llm.Sources, through the current source).
type imageAccepter interface{ AcceptsImages() bool }

// imageMessage returns the user message that shows the model the images
// the latest step's tools returned, and takes them off the turn: tool
// messages cannot carry images on the OpenAI wire, so they follow the
// tool messages in one user message. It returns false when there are none
// or the model does not accept images; the tools' text, which describes
// them, is then all the model gets.
//
// The message lives only in this turn's requests (turnState.steps): it is
// neither stored nor remembered, so later turns and a restart see the
// tools' text alone. Images are large (up to 4 of 5 MiB per result) and
// would be sent again with every later request of the session; the model
// has looked at them when it answers this turn.
func (k *Kernel) imageMessage(t *turnState) (llm.Message, bool) {
	images := t.images
	t.images = nil
	if len(images) == 0 {
		return llm.Message{}, false
	}
	if a, ok := k.provider.(imageAccepter); !ok || !a.AcceptsImages() {
		return llm.Message{}, false
	}
	m := llm.Message{Role: "user", Content: imagesIntro, Images: make([]llm.Image, len(images))}
	for i, im := range images {
		m.Images[i] = llm.Image{MIMEType: im.MIMEType, Data: im.Data, URL: im.URL}
	}
	return m, true
}

var _ imageAccepter = (*llm.Sources)(nil)
