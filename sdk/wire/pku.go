package wire

import "encoding/json"

// The PKU harness parts of the protocol (docs/pku-wire.md): methods the
// host calls on a plugin for dynamic tool descriptions and preferences.
const (
	MethodToolDescribe     = "tool.describe"     // the current text of a dynamic description
	MethodPreferenceGet    = "preference.get"    // a preference's value, from its get
	MethodPreferenceSet    = "preference.set"    // validate with its input, then its set
	MethodSpeechTranscribe = "speech.transcribe" // a speech provider's transcribe
	MethodOCRRecognize     = "ocr.recognize"     // an OCR provider's recognize
	// A model provider's listModels and balance. Defined and answered by
	// the TypeScript and Python SDKs; this host does not send them yet.
	MethodProviderListModels = "provider.listModels"
	MethodProviderBalance    = "provider.balance"
)

// ProviderCallParams asks a model provider (a key of the manifest's
// providers) for its models or its balance, with the host's settings
// for it.
type ProviderCallParams struct {
	Provider string         `json:"provider"`
	Config   ProviderConfig `json:"config"`
}

// ProviderConfig is what a provider's functions get from the host.
type ProviderConfig struct {
	BaseURL    string `json:"baseURL"`
	Model      string `json:"model,omitempty"`
	Credential string `json:"credential,omitempty"`
}

// ProviderModelsResult answers provider.listModels.
type ProviderModelsResult struct {
	Models []ProviderModel `json:"models"`
}

// ProviderBalanceResult answers provider.balance.
type ProviderBalanceResult struct {
	Account ProviderAccount `json:"account"`
}

// ProviderAccount is a provider's balance answer: whether the account
// can be used, and the money left in each currency.
type ProviderAccount struct {
	Available bool              `json:"available"`
	Balances  []ProviderBalance `json:"balances"`
}

// ProviderBalance is the money left in one currency: Total, of which
// Granted (vouchers, gifts) and ToppedUp (paid) when the provider says.
type ProviderBalance struct {
	Currency string   `json:"currency"`
	Total    float64  `json:"total"`
	Granted  *float64 `json:"granted,omitempty"`
	ToppedUp *float64 `json:"toppedUp,omitempty"`
}

// PKUManifest holds the manifest fields of the PKU harness model that
// only data travels for: the plugin keeps the functions, flagged here.
// Manifest embeds it.
type PKUManifest struct {
	// MaxAgentSteps is accepted and ignored, as the seed says.
	MaxAgentSteps int `json:"maxAgentSteps,omitzero"`
	// Cloud is kept as data; Hearth has no PKU harness Cloud.
	Cloud       json.RawMessage          `json:"cloud,omitempty"`
	Preferences map[string]PreferenceDef `json:"preferences,omitempty"`
	DataSources map[string]DataSourceDef `json:"dataSources,omitempty"`
	Providers   map[string]ProviderDef   `json:"providers,omitempty"`
	Speech      map[string]SpeechDef     `json:"speech,omitempty"`
	OCR         map[string]OCRDef        `json:"ocr,omitempty"`
}

// PreferenceOption is one value a choice preference may take.
type PreferenceOption struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// PreferenceDef is a PluginPreferenceDef without its functions: the
// plugin answers preference.get and preference.set for them.
type PreferenceDef struct {
	Title       string             `json:"title"`
	Description string             `json:"description,omitempty"`
	Kind        string             `json:"kind"` // choice, boolean, text or list
	Options     []PreferenceOption `json:"options,omitempty"`
	// Schema is the JSON Schema of the preference's input.
	Schema json.RawMessage `json:"schema,omitempty"`
	Screen string          `json:"screen,omitempty"`
}

// DataSourceDef names a read tool of the plugin for widgets and
// scheduled checks, with its arguments and how long a result is reused.
type DataSourceDef struct {
	Title string         `json:"title"`
	Tool  string         `json:"tool"`
	Args  map[string]any `json:"args,omitempty"`
	TTLMS int64          `json:"ttlMs"`
}

// ProviderModel is one model of a provider.
type ProviderModel struct {
	ID              string          `json:"id"`
	Name            string          `json:"name,omitempty"`
	Description     string          `json:"description,omitempty"`
	ContextWindow   int             `json:"contextWindow,omitzero"`
	InputModalities []string        `json:"inputModalities,omitempty"`
	Pricing         json.RawMessage `json:"pricing,omitempty"`
}

// ProviderDef is a model provider's data; the Has flags say which of its
// functions the plugin has. This host calls none of them yet.
type ProviderDef struct {
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	Auth            string          `json:"auth"` // apiKey, account or none
	DefaultBaseURL  string          `json:"defaultBaseURL"`
	EditableBaseURL bool            `json:"editableBaseURL,omitzero"`
	Models          []ProviderModel `json:"models"`
	DefaultModel    string          `json:"defaultModel"`
	Efforts         []string        `json:"efforts,omitempty"`
	CredentialHint  string          `json:"credentialHint,omitempty"`
	HasListModels   bool            `json:"hasListModels,omitzero"`
	HasSignIn       bool            `json:"hasSignIn,omitzero"`
	HasBalance      bool            `json:"hasBalance,omitzero"`
}

// SpeechDef is a speech provider's data.
type SpeechDef struct {
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	DefaultBaseURL  string          `json:"defaultBaseURL"`
	EditableBaseURL bool            `json:"editableBaseURL,omitzero"`
	Models          []ProviderModel `json:"models"`
	DefaultModel    string          `json:"defaultModel"`
	CredentialHint  string          `json:"credentialHint,omitempty"`
	KeyURL          string          `json:"keyURL,omitempty"`
	CredentialFrom  string          `json:"credentialFrom,omitempty"`
	HasTranscribe   bool            `json:"hasTranscribe,omitzero"`
	HasStream       bool            `json:"hasStream,omitzero"`
}

// OCRDef is an OCR provider's data; it always has recognize.
type OCRDef struct {
	Name           string `json:"name"`
	CredentialFrom string `json:"credentialFrom"`
}

// SpeechTranscribeParams asks a speech provider (a key of the manifest's
// speech) to transcribe audio with its transcribe: SpeechConfig's data
// and SpeechAudio's, the file as base64 (JSON's []byte).
type SpeechTranscribeParams struct {
	Provider   string `json:"provider"`
	BaseURL    string `json:"baseURL"`
	Model      string `json:"model"`
	Credential string `json:"credential,omitempty"`
	File       []byte `json:"file"`
	Name       string `json:"name"`
	MimeType   string `json:"mimeType"`
}

// OCRRecognizeParams asks an OCR provider (a key of the manifest's ocr)
// to read a document with its recognize; the answer is Markdown with a
// "## Page n" heading per page.
type OCRRecognizeParams struct {
	Provider   string `json:"provider"`
	BaseURL    string `json:"baseURL"`
	Credential string `json:"credential,omitempty"`
	File       []byte `json:"file"`
	Name       string `json:"name"`
	MimeType   string `json:"mimeType"`
}

// ToolDescribeParams asks for a dynamic description's current text.
type ToolDescribeParams struct {
	Tool string `json:"tool"` // the name inside the plugin
}

// PreferenceParams names a preference, and for preference.set carries the
// new value.
type PreferenceParams struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value,omitzero"`
}

// PreferenceResult answers preference.get.
type PreferenceResult struct {
	Value json.RawMessage `json:"value"`
}

// NotSupported is the text for a part of the PKU model this host loads
// but does not run yet (providers, speech, OCR).
const NotSupported = "not supported by this host yet"
