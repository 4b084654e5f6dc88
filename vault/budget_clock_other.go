//go:build !linux

package vault

import "time"

// threadClocks is false: elsewhere a parse's budget is wall time.
const threadClocks = false

type parseClock struct{}

func startParseClock() parseClock { return parseClock{} }

func (parseClock) stop() {}

func (parseClock) used() (time.Duration, bool) { return 0, false }
