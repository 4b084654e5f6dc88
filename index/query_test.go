package index

import (
	"strings"
	"testing"
)

// A query that does not parse says where: bleve's parser says only
// "syntax error".
func TestQueryErrorSaysWhere(t *testing.T) {
	for q, want := range map[string]string{
		"title:":               `syntax error at column 1, in "title:": a field needs a value`,
		"a -":                  `at column 3, in "-": + and - go right before a word`,
		"+":                    `at column 1, in "+"`,
		"a:b:c":                `in "a:b:c": one field per word`,
		`claim:"open loop`:     `the quote at column 7 is never closed`,
		`"é" tended:>`:         `at column 5, in "tended:>"`,
		`"a \" b" c:`:          `at column 10, in "c:"`,
		"a^x":                  `invalid boost value`,
		"title:x   claim:y z:": `at column 19`,
		// bleve parses these, and they matched no note without a reason.
		"claim:(":          `the query language has no parentheses ("(")`,
		"claim:(a b)":      `no parentheses ("(a")`,
		"a b)":             `no parentheses ("b)")`,
		"a OR b":           `the query language has no OR: a word is optional unless written +word`,
		"a AND b":          `no AND`,
		"+&&":              `"&&" has no word to search for (punctuation alone matches no note)`,
		"claim:\"--\"":     `"claim:--" has no word`,
		"denominator +...": `"..." has no word`,
		// bleve parses these and its searchers refuse them, inside the
		// index (TestSearchOfAnUnsearchableQueryKeepsTheIndex).
		"claim~3":       `claim~3: a word matches at most 2 edits away`,
		"title:claim~9": `claim~9: a word matches at most 2 edits away`,
		"claim~-1":      `claim~-1`,
		"/(/":           "/(/: error parsing regexp: missing closing )",
		"/a{1001}/":     "invalid repeat count",
		`/a\b/`:         "/a\\b/: word boundaries are not allowed",
		"/a*?/":         "lazy quantifiers are not allowed",
		// bleve's lexer takes ^ for a boost inside a regexp; it failed
		// with "runtime error: slice bounds out of range" alone.
		"/^a/":         "a regexp matches a whole word already, so it needs no ^ or $",
		"claim:/^a.*/": "^ is a boost (word^2), inside a /regexp/ too",
		// A control byte is in no word the analysers keep nor in any
		// path zk lists: "path:\x00" answered no hits and no reason.
		"path:\x00":    `a control character (U+0000 at byte 5)`,
		"claim:a\x1bb": `(U+001B at byte 7)`,
		"a\u0085":      `(U+0085 at byte 1)`,
		"a\x7f":        `(U+007F at byte 1)`,
		"title:\xff":   `not UTF-8 (at byte 6)`,
	} {
		_, err := parseQuery(q, nil, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseQuery(%q) = %v, want an error containing %q", q, err, want)
		}
	}
}

// Shapes near the refused ones still search.
func TestQueryParses(t *testing.T) {
	for _, q := range []string{"f(x)", "(ab)", `"(a"`, `claim:"a OR b"`, "or", "c++", "claim:(x)", "tag:(", "path:\\)", "claim~2", "claim~", "/cla.m/", "/[a-z]{1000}/", "a\tb", "a\nb\r\n"} {
		if _, err := parseQuery(q, nil, nil); err != nil {
			t.Errorf("parseQuery(%q) = %v, want no error", q, err)
		}
	}
}

func TestPlainQuery(t *testing.T) {
	for q, want := range map[string]string{
		"zettelkasten":        "zettelkasten",
		"  Open   questions ": "Open questions",
		`"Open questions"`:    "Open questions",
		"well-known":          "well-known",
		"title:x":             "",
		"+must":               "",
		"a -b":                "",
		"pre*":                "",
		"fuzzy~":              "",
		`"a" "b"`:             "",
	} {
		if got := plainQuery(q); got != want {
			t.Errorf("plainQuery(%q) = %q, want %q", q, got, want)
		}
	}
}
