// Package english writes counts as a person reads them: "1 note",
// "3 notes". Messages of every package (findings, evidence blocks, the
// command line) count things, and should agree on how.
package english

import "strconv"

// Plural is n and word, with an "s" unless n is 1: "1 day", "0 days".
func Plural(n int, word string) string {
	return PluralOf(n, word, word+"s")
}

// PluralOf is Plural for a word whose plural is not word+"s".
func PluralOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
