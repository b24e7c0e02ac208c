package llm

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// PriceWindow is a daily period in which a source's prices are multiplied:
// an off-peak discount such as the one DeepSeek gave from 16:30 to 00:30
// UTC (half price) before its V3.2 prices of 29 September 2025, or a
// peak surcharge. Times are "HH:MM" in the Price's Zone; an End at or
// before Start runs over midnight.
type PriceWindow struct {
	Start      string  `json:"start"`
	End        string  `json:"end"`
	Multiplier float64 `json:"multiplier"` // 0.5 is half price
	// Days are the days of the week the window applies on, 0 (Sunday)
	// to 6, in the Price's Zone; empty means every day. A window over
	// midnight belongs to the day it starts on.
	Days []int `json:"days,omitempty"`
}

// ErrPriceWindow is wrapped by Price.Check's complaints about windows.
var ErrPriceWindow = errors.New("bad price window")

// Check reports a price that cannot be used: a negative price, a window
// whose times are not HH:MM, a negative multiplier, or a Zone that is not
// a known IANA time zone.
func (p Price) Check() error {
	if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 || p.CacheWrite < 0 {
		return errors.New("a price is negative")
	}
	if len(p.Windows) == 0 {
		return nil
	}
	if _, err := p.location(); err != nil {
		return err
	}
	for i, w := range p.Windows {
		_, err1 := clockMinutes(w.Start)
		_, err2 := clockMinutes(w.End)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%w %d: %v", ErrPriceWindow, i+1, err)
		}
		if w.Multiplier < 0 {
			return fmt.Errorf("%w %d: negative multiplier", ErrPriceWindow, i+1)
		}
		for _, d := range w.Days {
			if d < 0 || d > 6 {
				return fmt.Errorf("%w %d: day %d is not 0 (Sunday) to 6", ErrPriceWindow, i+1, d)
			}
		}
	}
	return nil
}

// zones are the locations of the zones read so far: loading one reads
// the time zone database, and every model call's cost asks.
var zones sync.Map

// location is the Zone's location: an IANA name, or a fixed offset
// written "UTC+08:00"; empty means UTC.
func (p Price) location() (*time.Location, error) {
	if p.Zone == "" {
		return time.UTC, nil
	}
	if loc, ok := zones.Load(p.Zone); ok {
		return loc.(*time.Location), nil
	}
	if off, ok := fixedOffset(p.Zone); ok {
		loc := time.FixedZone(p.Zone, off)
		zones.Store(p.Zone, loc)
		return loc, nil
	}
	loc, err := time.LoadLocation(p.Zone)
	if err != nil {
		return nil, fmt.Errorf("%w: time zone %q: %v", ErrPriceWindow, p.Zone, err)
	}
	zones.Store(p.Zone, loc)
	return loc, nil
}

// fixedOffset reads a zone written "UTC+08:00" or "UTC-05:30" as seconds
// east of UTC.
func fixedOffset(zone string) (int, bool) {
	rest, ok := strings.CutPrefix(zone, "UTC")
	if !ok || len(rest) != 6 || (rest[0] != '+' && rest[0] != '-') {
		return 0, false
	}
	m, err := clockMinutes(rest[1:])
	if err != nil || m > 14*60 {
		return 0, false
	}
	if rest[0] == '-' {
		m = -m
	}
	return m * 60, true
}

// FixedZone writes an offset east of UTC, in minutes, as a Zone:
// "UTC+08:00".
func FixedZone(minutes int) string {
	sign := '+'
	if minutes < 0 {
		sign, minutes = '-', -minutes
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, minutes/60, minutes%60)
}

// clockMinutes parses "HH:MM" (00:00 to 24:00) into minutes after midnight.
func clockMinutes(s string) (int, error) {
	digit := func(i int) int { return int(s[i] - '0') }
	if len(s) != 5 || s[2] != ':' || !isDigits(s[:2]) || !isDigits(s[3:]) {
		return 0, fmt.Errorf("time %q is not HH:MM", s)
	}
	h, m := digit(0)*10+digit(1), digit(3)*10+digit(4)
	if h > 24 || m > 59 || (h == 24 && m != 0) {
		return 0, fmt.Errorf("time %q is not HH:MM", s)
	}
	return h*60 + m, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Multiplier is what prices are multiplied by for a call that starts at
// t: the first window holding t's time of day in the Price's Zone, else 1.
// A price whose windows do not pass Check is never multiplied.
func (p Price) Multiplier(t time.Time) float64 {
	if len(p.Windows) == 0 || p.Check() != nil {
		return 1
	}
	loc, _ := p.location()
	lt := t.In(loc)
	now := lt.Hour()*60 + lt.Minute()
	today := int(lt.Weekday())
	for _, w := range p.Windows {
		start, _ := clockMinutes(w.Start)
		end, _ := clockMinutes(w.End)
		in, day := start <= now && now < end, today
		if end <= start { // over midnight
			in = now >= start || now < end
			if now < end {
				day = (today + 6) % 7 // it started yesterday
			}
		}
		if in && (len(w.Days) == 0 || slices.Contains(w.Days, day)) {
			return w.Multiplier
		}
	}
	return 1
}

// CostAt is what u costs at p for a call that started at t: Cost times
// the Multiplier of t.
func (p Price) CostAt(u Usage, t time.Time) float64 {
	return p.Cost(u) * p.Multiplier(t)
}
