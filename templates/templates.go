// Package templates holds the note templates zk ships with and renders
// templates the way Obsidian's core Templates plugin does.
//
// A template is an ordinary Markdown note. The same file serves twice: zk
// new renders it into a new note, and zk check reads the note type's
// schema (its required sections, their order, the maintenance line) from
// it, so that a vault that overrides a template changes both at once. The
// variables are Obsidian's: {{title}}, {{date}}, {{time}},
// {{date:FORMAT}} and {{time:FORMAT}}, FORMAT in Moment.js tokens, so the
// file works unchanged in Obsidian.
package templates

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"
)

//go:embed *.md
var files embed.FS

// Default returns the embedded template of a note type ("permanent"), and
// whether zk ships one.
func Default(typ string) ([]byte, bool) {
	b, err := fs.ReadFile(files, typ+".md")
	return b, err == nil
}

// Names lists the note types zk ships a template for.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".md"))
	}
	return out
}

// varRe matches one template variable; Obsidian allows spaces inside the
// braces and takes the format after the first colon.
var varRe = regexp.MustCompile(`\{\{\s*(title|date|time)\s*(?::([^}]*))?\}\}`)

// Render fills a template's variables for a note titled title, created at
// now. {{date}} is YYYY-MM-DD and {{time}} HH:mm, Obsidian's defaults.
// Anything else between braces is left as written, as Obsidian does.
func Render(tmpl []byte, title string, now time.Time) []byte {
	return varRe.ReplaceAllFunc(tmpl, func(m []byte) []byte {
		sub := varRe.FindSubmatch(m)
		name, format := string(sub[1]), strings.TrimSpace(string(sub[2]))
		switch {
		case name == "title":
			return []byte(title)
		case format != "":
			return []byte(FormatMoment(now, format))
		case name == "date":
			return []byte(now.Format(time.DateOnly))
		default:
			return []byte(now.Format("15:04"))
		}
	})
}

// momentTokens are the Moment.js format tokens zk knows, longest first so
// that "MMMM" is not read as "MM" twice, each with its value.
var momentTokens = []struct {
	token string
	value func(t time.Time) string
}{
	{"YYYY", func(t time.Time) string { return fmt.Sprintf("%04d", t.Year()) }},
	{"YY", func(t time.Time) string { return fmt.Sprintf("%02d", t.Year()%100) }},
	{"MMMM", func(t time.Time) string { return t.Month().String() }},
	{"MMM", func(t time.Time) string { return t.Month().String()[:3] }},
	{"MM", func(t time.Time) string { return fmt.Sprintf("%02d", int(t.Month())) }},
	{"M", func(t time.Time) string { return strconv.Itoa(int(t.Month())) }},
	{"dddd", func(t time.Time) string { return t.Weekday().String() }},
	{"ddd", func(t time.Time) string { return t.Weekday().String()[:3] }},
	{"DD", func(t time.Time) string { return fmt.Sprintf("%02d", t.Day()) }},
	{"D", func(t time.Time) string { return strconv.Itoa(t.Day()) }},
	{"HH", func(t time.Time) string { return fmt.Sprintf("%02d", t.Hour()) }},
	{"H", func(t time.Time) string { return strconv.Itoa(t.Hour()) }},
	{"hh", func(t time.Time) string { return fmt.Sprintf("%02d", hour12(t)) }},
	{"h", func(t time.Time) string { return strconv.Itoa(hour12(t)) }},
	{"mm", func(t time.Time) string { return fmt.Sprintf("%02d", t.Minute()) }},
	{"m", func(t time.Time) string { return strconv.Itoa(t.Minute()) }},
	{"ss", func(t time.Time) string { return fmt.Sprintf("%02d", t.Second()) }},
	{"s", func(t time.Time) string { return strconv.Itoa(t.Second()) }},
	{"A", func(t time.Time) string { return t.Format("PM") }},
	{"a", func(t time.Time) string { return t.Format("pm") }},
	{"ZZ", func(t time.Time) string { return t.Format("-0700") }},
	{"Z", func(t time.Time) string { return t.Format("-07:00") }},
}

func hour12(t time.Time) int {
	if h := t.Hour() % 12; h != 0 {
		return h
	}
	return 12
}

// FormatMoment formats t with a Moment.js format ("YYYY-MM-DD HH:mm"), the
// format language of Obsidian's {{date:FORMAT}}. Text in square brackets
// is literal, as in Moment; characters that are not tokens are copied.
func FormatMoment(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); {
		if format[i] == '[' {
			if j := strings.IndexByte(format[i:], ']'); j > 0 {
				b.WriteString(format[i+1 : i+j])
				i += j + 1
				continue
			}
		}
		matched := false
		for _, tok := range momentTokens {
			if strings.HasPrefix(format[i:], tok.token) {
				b.WriteString(tok.value(t))
				i += len(tok.token)
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(format[i])
			i++
		}
	}
	return b.String()
}
