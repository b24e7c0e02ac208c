package search

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestAnalyzeFaults has a case for each tokenizer fault issue 13 lists:
// each pair of texts must share the given term (or must not).
func TestAnalyzeFaults(t *testing.T) {
	tests := []struct {
		name   string
		a, b   string // b is found by a
		shared string // a term both give
	}{
		{"half-width katakana", "ｺｰﾋｰ", "コーヒー", "コー"},
		{"decomposed accent", "cafe\u0301", "café", "café"},
		{"decomposed kana", "か\u3099いしゃ", "がいしゃ", "が"},
		{"circled digit", "①", "1", "1"},
		{"square unit", "5㎏", "5 kg", "kg"},
		{"superscript", "m²", "m2", "m2"},
		{"full-width latin", "ＡＰＩ", "api", "api"},
		{"long vowel", "コーヒー", "アイスコーヒー", "ーヒ"},
		{"emoji selector", "❤️", "❤", "❤"},
		{"devanagari", "हिन्दी", "हिन्दी भाषा", "हिन्दी"},
		{"thai", "ภาษา", "ภาษาไทย", "ษา"},
		{"letter-digit", "iPhone15", "iPhone 15", "15"},
		{"letter-digit back", "iPhone 15", "iphone15", "iphon"},
		{"version", "v1.2.3", "release 1.2.3", "1.2.3"},
		{"c++", "C++", "c++ templates", "c++"},
		{"c#", "C#", "learning c#", "c#"},
		{"f#", "F#", "F# and OCaml", "f#"},
		{".net", ".NET", "the .net runtime", ".net"},
		{"final sigma", "ΣΊΣΥΦΟΣ", "σίσυφος", "σίσυφοσ"},
		{"sharp s", "Straße", "STRASSE", "strass"},
		{"stemming", "running", "runs", "run"},
		{"hyphen", "Wi-Fi", "wifi", "wifi"},
		{"apostrophe", "John’s", "john's", "john"},
	}
	for _, tt := range tests {
		ta, tb := Tokens(tt.a), Tokens(tt.b)
		if !slices.Contains(ta, tt.shared) || !slices.Contains(tb, tt.shared) {
			t.Errorf("%s: Tokens(%q) = %q, Tokens(%q) = %q, want both with %q", tt.name, tt.a, ta, tt.b, tb, tt.shared)
		}
	}
	// Things that must not match or must not be terms.
	if a, b := Tokens("❤️"), Tokens("☀️"); len(a) != 1 || len(b) != 1 || a[0] == b[0] {
		t.Errorf("emoji: %q and %q", a, b)
	}
	for _, s := range []string{"\uFE0F", "❤️", "👨\u200d👩\u200d👧", "ภาษาไทย"} {
		for _, tok := range Tokens(s) {
			if tok == "\uFE0F" || tok == "\u200d" || strings.HasPrefix(tok, "\uFE0F") {
				t.Errorf("Tokens(%q) has a selector or joiner as a term: %q", s, Tokens(s))
			}
		}
	}
	if got := Tokens("👨\u200d👩\u200d👧"); len(got) != 1 {
		t.Errorf("ZWJ sequence: %q, want one term", got)
	}
	if got := Tokens("ภาษาไทยง่ายนิดเดียว"); len(got) < 10 {
		t.Errorf("Thai gives %q, want clusters and pairs", got)
	}
	// Lao, Khmer and Myanmar: grapheme clusters and pairs, marks kept on
	// their letter.
	for _, s := range []string{"ພາສາລາວ", "ភាសាខ្មែរ", "မြန်မာစာ"} {
		got := Tokens(s)
		if len(got) < 3 {
			t.Errorf("Tokens(%q) = %q, want clusters and pairs", s, got)
		}
		for _, tok := range got {
			if r, _ := utf8.DecodeRuneInString(tok); unicodeMark(r) {
				t.Errorf("Tokens(%q) has %q, starting with a mark", s, tok)
			}
		}
	}
	if got := Tokens("हिन्दी"); !slices.Equal(got, []string{"हिन्दी"}) {
		t.Errorf("Devanagari vowel signs split: %q", got)
	}
	if got := Tokens("C"); slices.Contains(Tokens("C++"), "c") || !slices.Equal(got, []string{"c"}) {
		t.Errorf("C++ must not be found by C: %q %q", Tokens("C++"), got)
	}
	if got := Tokens("a+b x#y"); slices.Contains(got, "a+") || slices.Contains(got, "x#") {
		t.Errorf("operators joined: %q", got)
	}
}

func TestTokensGolden(t *testing.T) {
	tests := map[string][]string{
		"明天北京天气？Weather API，ＡＰＩ v2": {"明", "明天", "天", "天北", "北", "北京", "京", "京天", "天", "天气", "气", "weather", "api", "api", "v2", "v", "2"},
		"コーヒー":                     {"コ", "コー", "ー", "ーヒ", "ヒ", "ヒー", "ー"},
		"iPhone15 v1.2.3":          {"iphone15", "iphon", "15", "v1.2.3", "1.2.3", "v", "1", "2", "3"},
		"The runners were running": {"the", "runner", "were", "run"},
		"서울에서":                     {"서", "서울", "울", "울에", "에", "에서", "서"},
	}
	for in, want := range tests {
		if got := Tokens(in); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q\nwant %q", in, got, want)
		}
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"ｺｰﾋｰ", "iPhone15 v1.2.3", "C++ .NET F#", "❤️☀️", "ภาษาไทย", "हिन्दी", "Wi-Fi-6 e-mail", "ΣΊΣΥΦΟΣ Straße", "\xff\xfe", "-.-#++", "a-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n int
		analyze(s, func(term string, _ termKind) {
			n++
			if term == "" || !utf8.ValidString(term) {
				t.Fatalf("bad term %q from %q", term, s)
			}
		})
		if got := Tokens(s); len(got) != n {
			t.Fatalf("Tokens gave %d terms, analyze %d", len(got), n)
		}
		// Deterministic, and a query of the same text finds the same terms.
		if a, b := Tokens(s), Tokens(s); !slices.Equal(a, b) {
			t.Fatalf("not deterministic: %q vs %q", a, b)
		}
	})
}

// mixedText is about 1 KB of Chinese, English, Japanese and odd cases.
var mixedText = strings.Repeat("明天北京天气预报：晴，气温二十五度。The weather API returns forecasts for running routes; "+
	"iPhone15 users upgraded to v1.2.3 of the C++ library. コーヒーを飲みながら東京タワーを見る。"+
	"Improving wireless throughput on the home router. 路由器怎么设置才能让网速更快？", 3)

func BenchmarkAnalyze(b *testing.B) {
	b.SetBytes(int64(len(mixedText)))
	var n int
	for b.Loop() {
		n += len(Tokens(mixedText))
	}
}

func BenchmarkLegacyTokens(b *testing.B) {
	b.SetBytes(int64(len(mixedText)))
	var n int
	for b.Loop() {
		n += len(legacyTokens(mixedText))
	}
}

func unicodeMark(r rune) bool { return unicode.Is(unicode.M, r) }
