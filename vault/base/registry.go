package base

import "sync"

// Func is one function or field of Bases that zk evaluates. Functions()
// is the one list of them: the compiler accepts a name only if it is
// here, a method runs only on the types listed here, and docs/bases.md's
// function table is held to it (TestDocsFunctionTable), so that the
// documentation, the evaluator and the tests cannot drift apart.
type Func struct {
	// On is the type the function is called on, as isType() names it
	// ("string", "list", "file"...), "any" for every type, or "" for a
	// global function.
	On   string
	Name string
	// Field is a property read without a call (date.year, list.length).
	Field bool
	// Partial says zk's value differs from Obsidian's, and how; "" when
	// zk computes what Obsidian does.
	Partial string
	// Source is the Obsidian text zk follows: a page of the help vault
	// (obsidianmd/obsidian-help, en/Bases/), a release note, or the API.
	Source string
	// Note says what a reader should know: the semantics zk follows
	// where the page is silent or has changed.
	Note string
}

// Sources cited below.
const (
	srcFunctions = "Functions.md"
	srcSyntax    = "Bases syntax.md"
	srcAPI       = "obsidian.d.ts (obsidian-api 1.12.3)"
	srcSkills    = "kepano/obsidian-skills FUNCTIONS_REFERENCE.md"
)

// Functions are every function and field zk evaluates, by type in the
// order of Functions.md.
func Functions() []Func {
	return []Func{
		// Global.
		{Name: "escapeHTML", Source: srcFunctions},
		{Name: "date", Source: srcFunctions + "; 1.10.3 release notes (ISO 8601 offsets)", Note: "`YYYY-MM-DD`, `YYYY-MM-DD HH:mm[:ss]`, with `T`, RFC 3339; of a property left empty (missing, `due:`, `\"\"`) null, an empty cell (Functions.md does not say)"},
		{Name: "duration", Source: srcFunctions},
		{Name: "file", Source: srcFunctions, Note: "a path, a link or a file"},
		{Name: "html", Partial: "headless, the HTML's text, typed html", Source: srcFunctions},
		{Name: "if", Source: srcFunctions, Note: "two or three arguments; only the chosen branch runs"},
		{Name: "image", Partial: "headless, the image's path or URL, typed image", Source: srcFunctions},
		{Name: "icon", Partial: "headless, the icon's name, typed icon", Source: srcFunctions},
		{Name: "link", Source: srcFunctions + "; 1.9.6 release notes", Note: "a path, `[[wikilink]]`, URL or file; optional display"},
		{Name: "list", Source: srcFunctions},
		{Name: "max", Source: srcFunctions + "; 1.9.1 release notes", Note: "numbers (and any values that compare)"},
		{Name: "min", Source: srcFunctions + "; 1.9.1 release notes", Note: "numbers (and any values that compare)"},
		{Name: "now", Source: srcFunctions, Note: "the clock, or midnight of `--today`"},
		{Name: "number", Source: srcFunctions, Note: "strings, booleans, dates (milliseconds), durations (milliseconds)"},
		{Name: "today", Source: srcFunctions},
		{Name: "random", Source: srcFunctions + "; 1.10.3 release notes"},

		// Any type.
		{On: "any", Name: "isTruthy", Source: srcFunctions},
		{On: "any", Name: "isType", Source: srcFunctions, Note: "type names: null, string, number, boolean, date, duration, list, object, link, file, regexp"},
		{On: "any", Name: "toString", Source: srcFunctions},
		{On: "any", Name: "isEmpty", Source: srcFunctions, Note: "null, `\"\"`, an empty list or object; false for a date or a number"},

		// Date.
		{On: "date", Name: "year", Field: true, Source: srcFunctions},
		{On: "date", Name: "month", Field: true, Source: srcFunctions},
		{On: "date", Name: "day", Field: true, Source: srcFunctions},
		{On: "date", Name: "hour", Field: true, Source: srcFunctions},
		{On: "date", Name: "minute", Field: true, Source: srcFunctions},
		{On: "date", Name: "second", Field: true, Source: srcFunctions},
		{On: "date", Name: "millisecond", Field: true, Source: srcFunctions},
		{On: "date", Name: "date", Source: srcFunctions},
		{On: "date", Name: "format", Source: srcFunctions, Note: "Moment.js tokens `YYYY YY MMMM MMM MM M DD D Do dddd ddd HH H hh h mm m ss s SSS A a ZZ Z X x`, `[literal]`; any other Moment token is a warning naming format() and `#error`"},
		{On: "date", Name: "time", Source: srcFunctions},
		{On: "date", Name: "relative", Source: srcFunctions, Note: "Moment.js's `fromNow()` wording and thresholds, English"},

		// Duration: the difference of two dates (obsidian.d.ts,
		// DurationValue: "can result from subtracting a DateValue from
		// another").
		{On: "duration", Name: "days", Field: true, Source: srcSkills + "; " + srcAPI, Note: "the whole span in days, with a fraction (`(now() - file.ctime).days`)"},
		{On: "duration", Name: "hours", Field: true, Source: srcSkills},
		{On: "duration", Name: "minutes", Field: true, Source: srcSkills},
		{On: "duration", Name: "seconds", Field: true, Source: srcSkills},
		{On: "duration", Name: "milliseconds", Field: true, Source: srcSkills},
		{On: "duration", Name: "weeks", Field: true, Source: "Moment.js `asWeeks()`", Note: "not in Obsidian's pages: Moment's conversion, a month 30.436875 days"},
		{On: "duration", Name: "months", Field: true, Source: "Moment.js `asMonths()`", Note: "not in Obsidian's pages: Moment's conversion"},
		{On: "duration", Name: "years", Field: true, Source: "Moment.js `asYears()`", Note: "not in Obsidian's pages: Moment's conversion, a year 365.2425 days"},

		// String.
		{On: "string", Name: "length", Field: true, Source: srcFunctions},
		{On: "string", Name: "contains", Source: srcFunctions + "; 1.9.1 release notes", Note: "ignoring case (\"`contains` function is now case-insensitive\", 1.9.1)"},
		{On: "string", Name: "containsAll", Source: srcFunctions + "; 1.9.1 release notes", Note: "ignoring case, as contains()"},
		{On: "string", Name: "containsAny", Source: srcFunctions + "; 1.9.1 release notes", Note: "ignoring case, as contains()"},
		{On: "string", Name: "endsWith", Source: srcFunctions, Note: "exact case, as JavaScript's"},
		{On: "string", Name: "lower", Source: srcFunctions},
		{On: "string", Name: "replace", Source: srcFunctions, Note: "a string pattern replaces every occurrence; a regexp the first unless `g`; `$1` in the replacement"},
		{On: "string", Name: "repeat", Source: srcFunctions + "; 1.9.8 release notes"},
		{On: "string", Name: "reverse", Source: srcFunctions + "; 1.9.8 release notes"},
		{On: "string", Name: "slice", Source: srcFunctions},
		{On: "string", Name: "split", Source: srcFunctions + "; 1.9.1 release notes"},
		{On: "string", Name: "startsWith", Source: srcFunctions, Note: "exact case, as JavaScript's"},
		{On: "string", Name: "title", Source: srcFunctions},
		{On: "string", Name: "trim", Source: srcFunctions},

		// Number.
		{On: "number", Name: "abs", Source: srcFunctions},
		{On: "number", Name: "ceil", Source: srcFunctions},
		{On: "number", Name: "floor", Source: srcFunctions + "; 1.9.1 release notes"},
		{On: "number", Name: "round", Source: srcFunctions, Note: "halves up, as `Math.round`; optional digits"},
		{On: "number", Name: "toFixed", Source: srcFunctions},

		// List.
		{On: "list", Name: "length", Field: true, Source: srcFunctions},
		{On: "list", Name: "contains", Source: srcFunctions + "; 1.9.11 and 1.9.14 release notes", Note: "a tag (`file.tags`, the `tags` property) matches itself and its nested tags, ignoring case and `#`: `file.tags.contains(\"x\")` is true for `#x` and `#x/y`"},
		{On: "list", Name: "containsAll", Source: srcFunctions + "; 1.9.14 release notes", Note: "tags as contains()"},
		{On: "list", Name: "containsAny", Source: srcFunctions + "; 1.9.14 release notes", Note: "tags as contains()"},
		{On: "list", Name: "filter", Source: srcFunctions + "; 1.9.5 release notes", Note: "`value`, `index`"},
		{On: "list", Name: "flat", Source: srcFunctions, Note: "one level"},
		{On: "list", Name: "join", Source: srcFunctions},
		{On: "list", Name: "map", Source: srcFunctions + "; 1.9.5 release notes", Note: "`value`, `index`"},
		{On: "list", Name: "reduce", Source: srcFunctions + "; 1.10.3 release notes", Note: "`value`, `index`, `acc`"},
		{On: "list", Name: "reverse", Source: srcFunctions, Note: "a new list"},
		{On: "list", Name: "slice", Source: srcFunctions},
		{On: "list", Name: "sort", Source: srcFunctions},
		{On: "list", Name: "unique", Source: srcFunctions},
		{On: "list", Name: "mean", Source: "1.10.3 release notes; " + srcSyntax + " (summaries)", Note: "the mean of the list's numbers"},
		{On: "list", Name: "median", Source: "1.10.3 release notes", Note: "the median of the list's numbers"},
		{On: "list", Name: "stddev", Source: "1.10.3 release notes", Note: "the population's standard deviation of the list's numbers"},

		// Link.
		{On: "link", Name: "asFile", Source: srcFunctions + "; 1.9.7 release notes"},
		{On: "link", Name: "linksTo", Source: srcFunctions},

		// File.
		{On: "file", Name: "name", Field: true, Source: srcFunctions + "; " + srcSyntax + "; Map view.md (`file.name.replace(\" \",\"+\")`)", Note: "a note's name without `.md` (`Daily`), any other file's with its extension (`Books.base`)"},
		{On: "file", Name: "basename", Field: true, Source: srcFunctions},
		{On: "file", Name: "path", Field: true, Source: srcFunctions},
		{On: "file", Name: "folder", Field: true, Source: srcFunctions, Note: "`/` for the vault's root"},
		{On: "file", Name: "ext", Field: true, Source: srcFunctions},
		{On: "file", Name: "size", Field: true, Source: srcFunctions},
		{On: "file", Name: "properties", Field: true, Source: srcFunctions},
		{On: "file", Name: "tags", Field: true, Source: srcFunctions + "; 1.9.8 release notes", Note: "frontmatter and inline tags, each once, written `#tag`"},
		{On: "file", Name: "links", Field: true, Source: srcFunctions + "; " + srcSyntax, Note: "frontmatter links included"},
		{On: "file", Name: "embeds", Field: true, Source: srcSyntax},
		{On: "file", Name: "backlinks", Field: true, Source: srcSyntax + "; 1.9.7 release notes"},
		{On: "file", Name: "ctime", Field: true, Partial: "outside Linux, or where the file system keeps no birth time, the modification time", Source: srcFunctions},
		{On: "file", Name: "mtime", Field: true, Source: srcFunctions},
		{On: "file", Name: "file", Field: true, Source: srcSyntax},
		{On: "file", Name: "asLink", Source: srcFunctions},
		{On: "file", Name: "hasLink", Source: srcFunctions + "; 1.9.3 release notes", Note: "links and embeds; a link with a subpath (`Note#Heading`) names its note"},
		{On: "file", Name: "linksTo", Partial: "a Canvas file's embedded files are not read: on a .canvas it is false", Source: "1.12.2 release notes (\"`file.linksTo()` treats files embedded within a Canvas as links\")", Note: "as hasLink(); not in Functions.md, which lists linksTo() on a link"},
		{On: "file", Name: "hasProperty", Source: srcFunctions + "; 1.9.8 release notes"},
		{On: "file", Name: "hasTag", Source: srcFunctions + "; 1.9.14 release notes", Note: "nested tags (`#a/b` has `a`), ignoring case"},
		{On: "file", Name: "inFolder", Source: srcFunctions + "; 1.9.1 release notes"},

		// Object.
		{On: "object", Name: "keys", Source: srcFunctions, Note: "in sorted order"},
		{On: "object", Name: "values", Source: srcFunctions, Note: "in the keys' order"},

		// Regular expression.
		{On: "regexp", Name: "matches", Source: srcFunctions, Note: "RE2 syntax: lookaround and backreferences are a warning naming the expression"},
	}
}

// registry is Functions() indexed for the compiler and the evaluator.
type registry struct {
	globals map[string]bool
	// methods are every method name on some type, for the compiler: which
	// types take it is checked when it runs.
	methods map[string]bool
	// on is "type.name" for every method and field.
	on map[string]bool
}

var funcs = sync.OnceValue(func() *registry {
	r := &registry{globals: map[string]bool{}, methods: map[string]bool{}, on: map[string]bool{}}
	for _, f := range Functions() {
		switch {
		case f.On == "":
			r.globals[f.Name] = true
		default:
			r.on[f.On+"."+f.Name] = true
			if !f.Field {
				r.methods[f.Name] = true
			}
		}
	}
	return r
})

// hasMethod says whether name is a method or field of values of type t
// (as typeName names it), or of every type.
func (r *registry) has(t, name string) bool {
	return r.on[t+"."+name] || r.on["any."+name]
}
