package xbot

import "time"

// SetHookTimeout shortens c's hook deadline for a test of a hook that
// never answers.
func SetHookTimeout(c *Context, d time.Duration) { c.timeout = d }
