package config

import (
	"strings"
	"testing"
)

func TestParseBudgetsFallbackPriceWindows(t *testing.T) {
	const src = `"sources": {"ds": {"base_url": "https://api.deepseek.com/v1", "price": {"input": 2, "output": 8, "currency": "CNY",
		"zone": "Asia/Shanghai", "windows": [{"start": "00:30", "end": "08:30", "multiplier": 0.5}]}},
		"qw": {"base_url": "https://dashscope.aliyuncs.com/compatible-mode/v1"}}`
	good := `{` + src + `, "fallback": ["qw"], "budgets": {"day": {"tokens": 1000000, "money": {"amount": 5, "currency": "CNY"}},
		"session": {"tokens": 200000}, "zone": "Asia/Shanghai"}}`
	f, err := Parse("config.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if f.Budgets.Day.Tokens != 1_000_000 || f.Budgets.Day.Money.Amount != 5 || f.Budgets.Session.Tokens != 200_000 ||
		len(f.Fallback) != 1 || f.Sources["ds"].Price.Windows[0].Multiplier != 0.5 {
		t.Fatalf("parsed %+v", f)
	}
	for _, c := range []struct{ json, want string }{
		{`{` + src + `, "fallback": ["nope"]}`, `fallback: source "nope" is not among the sources`},
		{`{` + src + `, "budgets": {"day": {"tokens": -1}}}`, "budgets.day.tokens is negative"},
		{`{` + src + `, "budgets": {"session": {"money": {"amount": 1}}}}`, "budgets.session.money needs"},
		{`{` + src + `, "budgets": {"zone": "Nowhere/City"}}`, `budgets.zone "Nowhere/City"`},
		{`{` + src + `, "budgets": {"job": {"tokens": 5}}}`, `unknown field "job"`},
		{`{"sources": {"ds": {"base_url": "https://x.test/v1", "price": {"input": 1, "zone": "Mars/Base", "windows": [{"start": "00:00", "end": "01:00", "multiplier": 1}]}}}}`,
			`source "ds": price: bad price window: time zone "Mars/Base"`},
		{`{"sources": {"ds": {"base_url": "https://x.test/v1", "price": {"input": 1, "windows": [{"start": "7:00", "end": "08:00", "multiplier": 1}]}}}}`,
			`bad price window 1: time "7:00" is not HH:MM`},
	} {
		_, err := Parse("config.json", []byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %q", c.json, err, c.want)
		}
	}
}
