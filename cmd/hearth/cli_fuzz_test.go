package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzSplitCommand: splitting a command line loses and invents nothing.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{"-v\x00ask\x00hi", "--data-dir\x00d\x00tools", "--\x00x", "--model=m", "-", "--data-dir"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		cmd, named, pre, rest := splitCommand(args)
		got := slices.Clone(pre)
		if named {
			got = append(got, cmd)
		} else if cmd != "chat" {
			t.Fatalf("%q: unnamed command %q", args, cmd)
		}
		got = append(got, rest...)
		if !slices.Equal(got, args) {
			t.Fatalf("%q: split into %q %q %q", args, pre, cmd, rest)
		}
	})
}

// FuzzSinceFlag: --since never panics, takes no negative duration, and
// takes what it shows back.
func FuzzSinceFlag(f *testing.F) {
	for _, s := range []string{"90s", "7d", "-7d", "1.5d", "0", "d", "99999999999d", "1h30m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		var s sinceFlag
		if err := s.Set(v); err != nil {
			return
		}
		if s < 0 {
			t.Fatalf("%q: %v", v, time.Duration(s))
		}
		var again sinceFlag
		if err := again.Set(s.String()); err != nil || again != s {
			t.Fatalf("%q: %s reads back as %v, %v", v, s.String(), time.Duration(again), err)
		}
	})
}

// FuzzComplete: completion never panics and offers only words that
// start with what is typed.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{"pl", "plugin\x00", "audit\x00--j", "serve\x00--log-level\x00", "policy\x00set\x00t\x00o", "--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		t.Setenv("HEARTH_HOME", t.TempDir())
		words := strings.Split(line, "\x00")
		for _, c := range complete(words) {
			if !strings.HasPrefix(c, words[len(words)-1]) {
				t.Fatalf("%q: offered %q", words, c)
			}
		}
	})
}
