// Package moment formats times with Moment.js format strings, the format
// language of Obsidian: a template's {{date:FORMAT}} and a base's
// date.format(FORMAT).
package moment

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Format formats t with a Moment.js format ("YYYY-MM-DD HH:mm"). Text in
// square brackets is literal, as in Moment; characters that are not
// tokens are copied.
func Format(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); {
		if format[i] == '[' {
			if j := strings.IndexByte(format[i:], ']'); j > 0 {
				b.WriteString(format[i+1 : i+j])
				i += j + 1
				continue
			}
		}
		tok := token(format[i:])
		if tok == "" {
			b.WriteByte(format[i])
			i++
			continue
		}
		b.WriteString(value(t, tok))
		i += len(tok)
	}
	return b.String()
}

// tokens are the Moment.js tokens zk knows, longest first so that "YYYY"
// is not read as "YY" twice, nor "Do" as "D".
var tokens = []string{"YYYY", "MMMM", "dddd", "SSS", "MMM", "ddd", "Do", "YY", "MM", "DD", "HH", "hh", "mm", "ss", "ZZ",
	"M", "D", "H", "h", "m", "s", "A", "a", "Z", "X", "x"}

func token(s string) string {
	for _, t := range tokens {
		if strings.HasPrefix(s, t) {
			return t
		}
	}
	return ""
}

func value(t time.Time, tok string) string {
	h12 := t.Hour() % 12
	if h12 == 0 {
		h12 = 12
	}
	switch tok {
	case "YYYY":
		return fmt.Sprintf("%04d", t.Year())
	case "YY":
		return fmt.Sprintf("%02d", t.Year()%100)
	case "MMMM":
		return t.Month().String()
	case "MMM":
		return t.Month().String()[:3]
	case "MM":
		return fmt.Sprintf("%02d", int(t.Month()))
	case "M":
		return strconv.Itoa(int(t.Month()))
	case "DD":
		return fmt.Sprintf("%02d", t.Day())
	case "D":
		return strconv.Itoa(t.Day())
	case "Do":
		return strconv.Itoa(t.Day()) + ordinal(t.Day())
	case "dddd":
		return t.Weekday().String()
	case "ddd":
		return t.Weekday().String()[:3]
	case "HH":
		return fmt.Sprintf("%02d", t.Hour())
	case "H":
		return strconv.Itoa(t.Hour())
	case "hh":
		return fmt.Sprintf("%02d", h12)
	case "h":
		return strconv.Itoa(h12)
	case "mm":
		return fmt.Sprintf("%02d", t.Minute())
	case "m":
		return strconv.Itoa(t.Minute())
	case "ss":
		return fmt.Sprintf("%02d", t.Second())
	case "s":
		return strconv.Itoa(t.Second())
	case "SSS":
		return fmt.Sprintf("%03d", t.Nanosecond()/1e6)
	case "A":
		return t.Format("PM")
	case "a":
		return t.Format("pm")
	case "ZZ":
		return t.Format("-0700")
	case "Z":
		return t.Format("-07:00")
	case "X":
		return strconv.FormatInt(t.Unix(), 10)
	case "x":
		return strconv.FormatInt(t.UnixMilli(), 10)
	}
	return tok
}

// ordinal is the English suffix of n: "st", "nd", "rd" or "th".
func ordinal(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// momentTokens are every Moment.js format token (moment's formatting
// regular expression), longest first: a format using one Format does not
// know would print it as text where Obsidian prints a value.
var momentTokens = []string{
	"YYYYYY", "YYYYY", "YYYY", "YY", "Y",
	"MMMM", "MMM", "MM", "Mo", "M",
	"DDDD", "DDDo", "DDD", "DD", "Do", "D",
	"dddd", "ddd", "dd", "do", "d",
	"wo", "ww", "w", "Wo", "WW", "W", "Qo", "Q",
	"NNNNN", "NNNN", "NNN", "NN", "N",
	"yyyy", "yyy", "yy", "yo", "y",
	"ggggg", "gggg", "gg", "GGGGG", "GGGG", "GG",
	"e", "E", "a", "A", "hh", "h", "HH", "H", "kk", "k",
	"mm", "m", "ss", "s",
	"SSSSSSSSS", "SSSSSSSS", "SSSSSSS", "SSSSSS", "SSSSS", "SSSS", "SSS", "SS", "S",
	"x", "X", "zz", "z", "ZZ", "Z",
	"LTS", "LT", "LLLL", "LLL", "LL", "L", "llll", "lll", "ll", "l",
}

// Unsupported is the first Moment.js token of format that Format does not
// print as Moment would ("Q", "Wo", "LL"...), or "" when Format prints
// them all.
func Unsupported(format string) string {
	for i := 0; i < len(format); {
		if format[i] == '[' {
			if j := strings.IndexByte(format[i:], ']'); j > 0 {
				i += j + 1
				continue
			}
		}
		var tok string
		for _, t := range momentTokens {
			if strings.HasPrefix(format[i:], t) {
				tok = t
				break
			}
		}
		if tok == "" {
			i++
			continue
		}
		if token(format[i:]) != tok {
			return tok
		}
		i += len(tok)
	}
	return ""
}
