package measure

import (
	"fmt"
	"strconv"
	"strings"
)

// Numbers is how a captured number is written: which character groups
// thousands and which marks the decimals. A program prints 1234.5; a
// person's report may print 1,234.5 or, in much of Europe, 1.234,5, and
// the same "1,234" is a thousand and more in one and about one in the
// other. zk reads a number only as a convention the note or the config
// declares, or as the one reading every convention agrees on.
type Numbers string

// The conventions a falsifier's "numbers:" item or the config's
// [claims] numbers may declare, written as they write 1234.5.
const (
	// NumbersAny declares nothing: a number is read when only one
	// convention can read it (1234.5, 1,234.5, 1.234,5, 1,5), and refused
	// when two read it differently (1,234).
	NumbersAny Numbers = ""
	// NumbersPoint: the point is the decimal mark, the comma groups
	// thousands (1,234.5).
	NumbersPoint Numbers = "1,234.5"
	// NumbersComma: the comma is the decimal mark, the point groups
	// thousands (1.234,5).
	NumbersComma Numbers = "1.234,5"
)

// ParseNumbers reads a declared convention: "1,234.5" or "1.234,5", in a
// code span or not.
func ParseNumbers(s string) (Numbers, error) {
	switch n := Numbers(unquote(strings.TrimSpace(s))); n {
	case NumbersPoint, NumbersComma:
		return n, nil
	}
	return "", fmt.Errorf("numbers: %q is not a convention zk knows; write 1,234.5 (decimal point) or 1.234,5 (decimal comma)", s)
}

// ParseNumber reads s, a number as written by convention conv: an
// optional sign, digits grouped by thousands or not, an optional decimal
// part and, for a number without groups, an optional exponent (1.5e6). A
// number conv cannot read, or that two conventions read differently when
// none was declared, is an error that says so.
func ParseNumber(s string, conv Numbers) (float64, error) {
	s = strings.TrimSpace(s)
	switch conv {
	case NumbersPoint:
		return readAs(s, ',', '.')
	case NumbersComma:
		return readAs(s, '.', ',')
	case NumbersAny:
	default:
		return 0, fmt.Errorf("unknown number convention %q", conv)
	}
	if !strings.Contains(s, ",") {
		// A point alone is how programs print a number, whatever the
		// locale: 1.234 is one and a bit.
		return readAs(s, 0, '.')
	}
	p, perr := readAs(s, ',', '.')
	c, cerr := readAs(s, '.', ',')
	switch {
	case perr == nil && cerr == nil && p != c:
		return 0, fmt.Errorf("%q reads as %s (1,234.5) or as %s (1.234,5); declare which with numbers: 1,234.5 or numbers: 1.234,5", s, fmtNum(p), fmtNum(c))
	case perr == nil:
		return p, nil
	case cerr == nil:
		return c, nil
	}
	return 0, fmt.Errorf("%q is not a number", s)
}

// readAs reads s with group (0: none allowed) grouping thousands and
// decimal marking the decimals.
func readAs(s string, group, decimal byte) (float64, error) {
	bad := func() (float64, error) {
		conv := "1234.5"
		switch {
		case group == ',':
			conv = string(NumbersPoint)
		case group == '.':
			conv = string(NumbersComma)
		}
		return 0, fmt.Errorf("%q is not a number as %s writes one", s, conv)
	}
	body := s
	sign := ""
	if body != "" && (body[0] == '-' || body[0] == '+') {
		sign, body = body[:1], body[1:]
	}
	intPart, frac, hasFrac := strings.Cut(body, string(decimal))
	exp := ""
	if i := strings.IndexAny(frac, "eE"); hasFrac && i >= 0 {
		frac, exp = frac[:i], frac[i:]
	} else if i := strings.IndexAny(intPart, "eE"); !hasFrac && i >= 0 {
		intPart, exp = intPart[:i], intPart[i:]
	}
	if intPart == "" || !digits(frac) || hasFrac && frac == "" {
		return bad()
	}
	grouped := group != 0 && strings.IndexByte(intPart, group) >= 0
	if grouped {
		if exp != "" {
			return bad()
		}
		groups := strings.Split(intPart, string(group))
		if len(groups[0]) == 0 || len(groups[0]) > 3 || !digits(groups[0]) {
			return bad()
		}
		for _, g := range groups[1:] {
			if len(g) != 3 || !digits(g) {
				return bad()
			}
		}
		intPart = strings.Join(groups, "")
	} else if !digits(intPart) {
		return bad()
	}
	num := sign + intPart
	if hasFrac {
		num += "." + frac
	}
	if exp != "" {
		if _, err := strconv.Atoi(exp[1:]); err != nil || len(exp) < 2 {
			return bad()
		}
		num += exp
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return bad()
	}
	return f, nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
