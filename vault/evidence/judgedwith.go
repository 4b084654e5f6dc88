package evidence

import (
	"regexp/syntax"
	"slices"
	"strconv"

	"github.com/zk-claims/zk/vault/evidence/criterion"
	"github.com/zk-claims/zk/vault/evidence/measure"
)

// What judged a run besides its criterion's expression (a record's Judged
// with field, Falsifier.JudgedWith) is compared by meaning, not as text:
// `confidence: 95%` written out where none was (the default), 0.95 for
// 95%, a capture's spacing or a code span judge exactly as before, and a
// cosmetic edit that raised falsifiers/criterion-changed (and asked for
// the refuting run's log before a run could answer) said something
// changed that did not. A value zk cannot read is compared as written.

// judgedWithMeaning is what a Judged with field's parts mean: each
// capture as NAME = its regexp as the regexp package prints it, the
// number convention and the confidence as parsed (the default for none).
type judgedWithMeaning struct {
	caps          []string
	numbers, conf string
}

// meaningOf reads a Judged with field (Falsifier.JudgedWith's words);
// false when it cannot be read back.
func meaningOf(s string) (judgedWithMeaning, bool) {
	caps, numbers, conf, ok := parseJudgedWith(oneLine(s))
	if !ok {
		return judgedWithMeaning{}, false
	}
	m := judgedWithMeaning{numbers: numbersMeaning(numbers), conf: confidenceMeaning(conf)}
	for _, c := range caps {
		m.caps = append(m.caps, captureMeaning(c))
	}
	// A capture is found by its name, so the items' order says nothing,
	// unless two share a name (the criterion reads one of them).
	if !sharedNames(caps) {
		slices.Sort(m.caps)
	}
	return m, true
}

// sharedNames says two of captures have the same name.
func sharedNames(caps []string) bool {
	seen := map[string]bool{}
	for _, c := range caps {
		cp, err := measure.ParseCapture(c)
		if err != nil {
			continue
		}
		if seen[cp.Name] {
			return true
		}
		seen[cp.Name] = true
	}
	return false
}

func captureMeaning(c string) string {
	cp, err := measure.ParseCapture(c)
	if err != nil {
		return "as written " + c
	}
	re, err := syntax.Parse(cp.Re.String(), syntax.Perl)
	if err != nil {
		return "as written " + c
	}
	return cp.Name + " = " + re.Simplify().String()
}

func numbersMeaning(s string) string {
	if s == "" {
		return ""
	}
	n, err := measure.ParseNumbers(s)
	if err != nil {
		return "as written " + s
	}
	return string(n)
}

func confidenceMeaning(s string) string {
	v := criterion.DefaultConfidence
	if s != "" {
		var err error
		if v, err = ParseConfidence(s); err != nil {
			return "as written " + s
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// sameJudgedWith says two Judged with fields judge alike.
func sameJudgedWith(a, b string) bool {
	if oneLine(a) == oneLine(b) {
		return true
	}
	x, ok := meaningOf(a)
	y, ok2 := meaningOf(b)
	return ok && ok2 && slices.Equal(x.caps, y.caps) && x.numbers == y.numbers && x.conf == y.conf
}

// judgedWithAsNow says record r was judged with the captures, numbers and
// confidence f judges with now; a block without a falsifier id records
// none, and is taken at its criterion's word.
func judgedWithAsNow(r Run, f Falsifier) bool {
	return r.FalsifierID == "" || sameJudgedWith(r.JudgedWith, f.JudgedWith())
}
