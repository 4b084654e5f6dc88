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
	"io/fs"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/lazyre"
	"github.com/zk-claims/zk/internal/moment"
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
var varRe = lazyre.New(`\{\{\s*(title|date|time)\s*(?::([^}]*))?\}\}`)

// Render fills a template's variables for a note titled title, created at
// now. {{date}} is YYYY-MM-DD and {{time}} HH:mm, Obsidian's defaults.
// Anything else between braces is left as written, as Obsidian does.
func Render(tmpl []byte, title string, now time.Time) []byte {
	return varRe().ReplaceAllFunc(tmpl, func(m []byte) []byte {
		sub := varRe().FindSubmatch(m)
		name, format := string(sub[1]), strings.TrimSpace(string(sub[2]))
		switch {
		case name == "title":
			return []byte(title)
		case format != "":
			return []byte(moment.Format(now, format))
		case name == "date":
			return []byte(now.Format(time.DateOnly))
		default:
			return []byte(now.Format("15:04"))
		}
	})
}
