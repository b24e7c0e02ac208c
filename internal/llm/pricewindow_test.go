package llm

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestPriceWindows(t *testing.T) {
	// DeepSeek's off-peak discount as it was before V3.2: half price from
	// 00:30 to 08:30 Beijing time (16:30 to 00:30 UTC).
	p := Price{Input: 2, Output: 8, CachedInput: 0.5, Currency: "CNY", Zone: "Asia/Shanghai",
		Windows: []PriceWindow{{Start: "00:30", End: "08:30", Multiplier: 0.5}}}
	u := Usage{PromptTokens: 1e6, CachedTokens: 4e5, CompletionTokens: 1e5}
	full := 0.6*2 + 0.4*0.5 + 0.1*8 // 2.2 CNY
	for _, c := range []struct {
		at   string // UTC
		want float64
	}{
		{"2026-12-01T16:29:59Z", full},     // 00:29:59 in Beijing
		{"2026-12-01T16:30:00Z", full / 2}, // 00:30
		{"2026-12-01T23:59:00Z", full / 2},
		{"2026-12-02T00:29:00Z", full / 2}, // 08:29
		{"2026-12-02T00:30:00Z", full},     // 08:30
		{"2026-12-02T08:00:00Z", full},     // 16:00
	} {
		at, _ := time.Parse(time.RFC3339, c.at)
		if got := p.CostAt(u, at); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("at %s: cost %v, want %v", c.at, got, c.want)
		}
	}

	// A window over midnight in its zone, and the first match wins.
	night := Price{Input: 1, Output: 1, Zone: "Europe/Berlin", Windows: []PriceWindow{
		{Start: "22:00", End: "06:00", Multiplier: 0.25}, {Start: "05:00", End: "07:00", Multiplier: 2}}}
	for _, c := range []struct {
		at   string
		want float64
	}{
		{"2026-12-01T21:30:00Z", 0.25}, // 22:30 CET
		{"2026-12-01T04:30:00Z", 0.25}, // 05:30: the first window
		{"2026-12-01T05:30:00Z", 2},    // 06:30
		{"2026-07-01T05:30:00Z", 1},    // 07:30 CEST: outside both
	} {
		at, _ := time.Parse(time.RFC3339, c.at)
		if got := night.Multiplier(at); got != c.want {
			t.Errorf("at %s: multiplier %v, want %v", c.at, got, c.want)
		}
	}
}

func TestPriceCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Price
		ok   bool
	}{
		{"plain", Price{Input: 1}, true},
		{"negative", Price{Input: -1}, false},
		{"window", Price{Zone: "Asia/Shanghai", Windows: []PriceWindow{{"00:30", "08:30", 0.5}}}, true},
		{"unknown zone", Price{Zone: "Mars/Olympus", Windows: []PriceWindow{{"00:30", "08:30", 0.5}}}, false},
		{"bad time", Price{Windows: []PriceWindow{{"0:30", "08:30", 0.5}}}, false},
		{"hour 25", Price{Windows: []PriceWindow{{"25:00", "08:30", 0.5}}}, false},
		{"negative multiplier", Price{Windows: []PriceWindow{{"00:30", "08:30", -1}}}, false},
		{"24:00 ends the day", Price{Windows: []PriceWindow{{"20:00", "24:00", 2}}}, true},
	} {
		err := c.p.Check()
		if (err == nil) != c.ok {
			t.Errorf("%s: Check() = %v, want ok=%v", c.name, err, c.ok)
		}
		if err != nil && len(c.p.Windows) > 0 && c.p.Input >= 0 && !errors.Is(err, ErrPriceWindow) {
			t.Errorf("%s: %v does not wrap ErrPriceWindow", c.name, err)
		}
	}
	// A broken price is never multiplied.
	if m := (Price{Windows: []PriceWindow{{"xx", "08:30", 0}}}).Multiplier(time.Now()); m != 1 {
		t.Errorf("broken window multiplied by %v", m)
	}
}
