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
		{"window", Price{Zone: "Asia/Shanghai", Windows: []PriceWindow{{Start: "00:30", End: "08:30", Multiplier: 0.5}}}, true},
		{"unknown zone", Price{Zone: "Mars/Olympus", Windows: []PriceWindow{{Start: "00:30", End: "08:30", Multiplier: 0.5}}}, false},
		{"bad time", Price{Windows: []PriceWindow{{Start: "0:30", End: "08:30", Multiplier: 0.5}}}, false},
		{"hour 25", Price{Windows: []PriceWindow{{Start: "25:00", End: "08:30", Multiplier: 0.5}}}, false},
		{"negative multiplier", Price{Windows: []PriceWindow{{Start: "00:30", End: "08:30", Multiplier: -1}}}, false},
		{"fixed offset", Price{Zone: "UTC+08:00", Windows: []PriceWindow{{Start: "09:00", End: "12:00", Multiplier: 2, Days: []int{1, 5}}}}, true},
		{"offset past 14 hours", Price{Zone: "UTC+15:00", Windows: []PriceWindow{{Start: "09:00", End: "12:00", Multiplier: 2}}}, false},
		{"signed offset", Price{Zone: "UTC+-1:00", Windows: []PriceWindow{{Start: "09:00", End: "12:00", Multiplier: 2}}}, false},
		{"spaced offset", Price{Zone: "UTC+ 8:00", Windows: []PriceWindow{{Start: "09:00", End: "12:00", Multiplier: 2}}}, false},
		{"signed start", Price{Windows: []PriceWindow{{Start: "-1:00", End: "12:00", Multiplier: 2}}}, false},
		{"day 7", Price{Windows: []PriceWindow{{Start: "09:00", End: "12:00", Multiplier: 2, Days: []int{7}}}}, false},
		{"24:00 ends the day", Price{Windows: []PriceWindow{{Start: "20:00", End: "24:00", Multiplier: 2}}}, true},
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
	if m := (Price{Windows: []PriceWindow{{Start: "xx", End: "08:30", Multiplier: 0}}}).Multiplier(time.Now()); m != 1 {
		t.Errorf("broken window multiplied by %v", m)
	}
}

// DeepSeek's peak hours (its pricing page, read 2026-12-01): twice the
// idle price Monday to Friday 9:00-12:00 and 14:00-18:00 Beijing time.
// A call's cost follows the hour and the day it started at, in
// Beijing; the same price serves budgets' estimates.
func TestPeakPricing(t *testing.T) {
	p, ok := PriceOf(Source{BaseURL: "https://api.deepseek.com"}, "deepseek-flash")
	if !ok || p.Zone != "UTC+08:00" || p.Check() != nil {
		t.Fatalf("price %+v, %v, check %v", p, ok, p.Check())
	}
	u := Usage{PromptTokens: 1_000_000, CachedTokens: 500_000, CompletionTokens: 100_000}
	idle := (500_000*1 + 500_000*0.02 + 100_000*4) / 1e6 // 0.91 yuan
	beijing := time.FixedZone("Beijing", 8*3600)
	for _, c := range []struct {
		at   time.Time
		want float64
	}{
		{time.Date(2026, 12, 1, 10, 0, 0, 0, beijing), 2 * idle},  // Tuesday morning
		{time.Date(2026, 12, 1, 12, 0, 0, 0, beijing), idle},      // lunch
		{time.Date(2026, 12, 1, 17, 59, 0, 0, beijing), 2 * idle}, // afternoon
		{time.Date(2026, 12, 1, 18, 0, 0, 0, beijing), idle},      // evening
		{time.Date(2026, 12, 5, 10, 0, 0, 0, beijing), idle},      // Saturday
		{time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC), 2 * idle},  // 10:00 in Beijing
		{time.Date(2026, 12, 4, 23, 30, 0, 0, time.UTC), idle},    // Saturday 07:30 in Beijing
		{time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC), idle},    // Tuesday 06:00 in Beijing
		{time.Date(2026, 12, 7, 6, 30, 0, 0, time.UTC), 2 * idle}, // Monday 14:30 in Beijing
		{time.Date(2026, 12, 6, 6, 30, 0, 0, time.UTC), idle},     // Sunday 14:30 in Beijing
	} {
		if got := p.CostAt(u, c.at); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("at %s: %v, want %v", c.at, got, c.want)
		}
	}
	// A window over midnight belongs to the day it starts on.
	night := Price{Input: 1, Windows: []PriceWindow{{Start: "22:00", End: "02:00", Multiplier: 0.5, Days: []int{5}}}} // Friday night
	for _, c := range []struct {
		at   time.Time
		want float64
	}{
		{time.Date(2026, 12, 4, 23, 0, 0, 0, time.UTC), 0.5}, // Friday 23:00
		{time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC), 0.5},  // Saturday 01:00, Friday's night
		{time.Date(2026, 12, 5, 23, 0, 0, 0, time.UTC), 1},   // Saturday 23:00
		{time.Date(2026, 12, 4, 1, 0, 0, 0, time.UTC), 1},    // Friday 01:00, Thursday's night
	} {
		if got := night.Multiplier(c.at); got != c.want {
			t.Errorf("night at %s: %v, want %v", c.at, got, c.want)
		}
	}
}
