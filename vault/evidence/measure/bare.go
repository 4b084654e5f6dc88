package measure

import (
	"regexp/syntax"
	"strings"
)

// Bare says the capture's pattern has nothing around its number to find
// it by: no text, no anchor, only its group and classes (`([0-9]+)`,
// `\s*(\d+)`). Such a pattern matches the first number of any output,
// so `failing = ([0-9]+)` (name failing, pattern ([0-9]+)) reads the 2 of
// "--- FAIL: 2 tests ... failing = 0". The name before the = is no text
// the pattern looks for.
func (c Capture) Bare() bool {
	if c.Re == nil {
		return false
	}
	re, err := syntax.Parse(c.Re.String(), syntax.Perl)
	if err != nil {
		return false
	}
	return !context(re, false)
}

// context says re holds something that pins where a match is: a literal
// outside the first group, or inside it one that is no part of a number
// (`(failing = [0-9]+)`), or an anchor.
func context(re *syntax.Regexp, inGroup bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if !inGroup {
			return true
		}
		return strings.IndexFunc(string(re.Rune), func(r rune) bool {
			return !strings.ContainsRune("0123456789.,'_ +-eE", r)
		}) >= 0
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	case syntax.OpCapture:
		inGroup = inGroup || re.Cap == 1
	}
	for _, sub := range re.Sub {
		if context(sub, inGroup) {
			return true
		}
	}
	return false
}
