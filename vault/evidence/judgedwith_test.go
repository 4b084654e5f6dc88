package evidence

import (
	"slices"
	"testing"

	"github.com/zk-claims/zk/vault/evidence/measure"
)

// What judges a run besides its criterion's expression is compared by
// meaning: a cosmetic edit of the falsifier's items (a confidence written
// as a share, the default written out, a capture's spacing, a code span)
// judges as before and is no changed criterion, while a change of what
// they mean still is, named as before.
func TestJudgedWithByMeaning(t *testing.T) {
	const crit = "rate < 100"
	type items struct {
		caps          []string
		numbers, conf string
		repeat        string
	}
	cases := []struct {
		name     string
		was, now items
		changes  []string // nil: no change
	}{
		{"nothing", items{}, items{}, nil},
		{"the default confidence written out", items{}, items{conf: "95%"}, nil},
		{"the default confidence written out, then dropped", items{conf: "95%"}, items{}, nil},
		{"a share for a percentage", items{conf: "95%"}, items{conf: "0.95"}, nil},
		{"a confidence in a code span", items{conf: "99%"}, items{conf: "`99 %`"}, nil},
		{"a percentage with a decimal", items{conf: "99%"}, items{conf: "99.0%"}, nil},
		{"a capture's spacing", items{caps: []string{"`rate = ([0-9.]+) tok/s`"}}, items{caps: []string{"rate=([0-9.]+) tok/s"}}, nil},
		{"a capture's class spelt otherwise", items{caps: []string{"`rate = ([0-9]+)`"}}, items{caps: []string{"`rate = (\\d+)`"}}, nil},
		{"captures reordered", items{caps: []string{"`a = ([0-9]+)`", "`b = x([0-9]+)`"}}, items{caps: []string{"`b = x([0-9]+)`", "`a = ([0-9]+)`"}}, nil},
		{"numbers in a code span", items{numbers: "1,234.5"}, items{numbers: "`1,234.5`"}, nil},
		{"repeat: 1 for none", items{}, items{repeat: "1"}, nil},
		{"repeat in a code span", items{repeat: "3"}, items{repeat: "`3`"}, nil},

		{"another confidence", items{}, items{conf: "99%"}, []string{"its confidence was none, now `99%`"}},
		{"another confidence, as a share", items{conf: "0.95"}, items{conf: "0.99"}, []string{"its confidence was `0.95`, now `0.99`"}},
		{"the confidence dropped", items{conf: "90%"}, items{}, []string{"its confidence was `90%`, now none"}},
		{"another capture pattern", items{caps: []string{"`rate = ([0-9.]+) tok/s`"}}, items{caps: []string{"`rate = ([0-9.]+)`"}}, []string{"its capture was `rate = ([0-9.]+) tok/s`, now `rate = ([0-9.]+)`"}},
		{"a capture's case", items{caps: []string{"`rate = ([0-9.]+) tok/s`"}}, items{caps: []string{"`rate = ([0-9.]+) TOK/S`"}}, []string{"its capture was `rate = ([0-9.]+) tok/s`, now `rate = ([0-9.]+) TOK/S`"}},
		{"a capture added", items{caps: []string{"`rate = ([0-9.]+)`"}}, items{caps: []string{"`rate = ([0-9.]+)`", "`n = n([0-9]+)`"}}, []string{"its captures were `rate = ([0-9.]+)`, now `rate = ([0-9.]+)`, `n = n([0-9]+)`"}},
		{"numbers declared", items{}, items{numbers: "1,234.5"}, []string{"its numbers were none, now `1,234.5`"}},
		{"numbers the other way", items{numbers: "1,234.5"}, items{numbers: "1.234,5"}, []string{"its numbers were `1,234.5`, now `1.234,5`"}},
		{"repeat: 3 for none", items{}, items{repeat: "3"}, []string{"its repeat was none, now `3`"}},
		{"an unreadable confidence is compared as written", items{conf: "high"}, items{conf: "higher"}, []string{"its confidence was `high`, now `higher`"}},
	}
	falsifier := func(it items) Falsifier {
		return Falsifier{N: 1, Text: "The rate stays over 100.", ID: "f-1a2b", Criterion: crit,
			Captures: it.caps, CaptureLines: make([]int, len(it.caps)), Numbers: it.numbers, Confidence: it.conf, Repeat: it.repeat}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			was := falsifier(c.was)
			n, _ := was.Repeats()
			r := Run{ID: "20261206T010203Z-1a2b", FalsifierID: "f-1a2b", Runs: n, Repeat: n, Verdict: VerdictSupports,
				Criterion: "rate = 120; refuted if `" + crit + "`: not refuted", JudgedWith: was.JudgedWith()}
			l := Latest{Falsifier: falsifier(c.now), Run: r, Runs: []Run{r}}
			got := JudgingChanges(l)
			if !slices.Equal(got, c.changes) {
				t.Errorf("changes = %q, want %q", got, c.changes)
			}
			if l.CriterionChanged() != (c.changes != nil) {
				t.Errorf("CriterionChanged() = %v, want %v", l.CriterionChanged(), c.changes != nil)
			}
			if judgedAsNow(l.Falsifier, r) == (c.changes != nil) {
				t.Errorf("judgedAsNow = %v, want %v", judgedAsNow(l.Falsifier, r), c.changes == nil)
			}
			if judgedAsWritten(r, l.Falsifier) != (c.changes == nil || c.now.repeat != c.was.repeat) {
				t.Errorf("judgedAsWritten = %v", judgedAsWritten(r, l.Falsifier))
			}
		})
	}
}

// The config's numbers and confidence judge a falsifier that says none
// (Under), so a record states them and a change of the config is a
// changed criterion, named as a change of the note's items is; the
// built-in defaults (none, 95%) are what a record that states neither
// was judged by. Before, the config's part was never recorded and never
// compared: a verdict judged at the config's 90% read as judged at 99%.
func TestJudgedWithTheConfigs(t *testing.T) {
	point := measure.NumbersPoint
	type judging struct {
		conf    string // the falsifier's item
		numbers string
		config  Settings
	}
	cases := []struct {
		name     string
		was, now judging
		recorded string
		changes  []string // nil: no change
	}{
		{"the built-in defaults", judging{}, judging{}, "", nil},
		{"the config's default spelt out", judging{}, judging{config: Settings{Confidence: 0.95}}, "", nil},
		{"the config unchanged", judging{config: Settings{Confidence: 0.9}}, judging{config: Settings{Confidence: 0.9}}, "confidence `90%`", nil},
		{"the config's 90% moved into the note", judging{config: Settings{Confidence: 0.9}}, judging{conf: "0.9"}, "confidence `90%`", nil},
		{"the note's 90% moved into the config", judging{conf: "90%"}, judging{config: Settings{Confidence: 0.9}}, "confidence `90%`", nil},
		{"the note's item wins over the config", judging{conf: "99%", config: Settings{Confidence: 0.9}}, judging{conf: "99%", config: Settings{Confidence: 0.8}}, "confidence `99%`", nil},

		{"the config's confidence changed", judging{config: Settings{Confidence: 0.9}}, judging{config: Settings{Confidence: 0.99}}, "confidence `90%`",
			[]string{"its confidence was `90%`, now `99%` (the config's)"}},
		{"the config's confidence dropped", judging{config: Settings{Confidence: 0.9}}, judging{}, "confidence `90%`",
			[]string{"its confidence was `90%`, now none"}},
		{"a config's confidence since", judging{}, judging{config: Settings{Confidence: 0.9}}, "",
			[]string{"its confidence was none, now `90%` (the config's)"}},
		{"the note's item dropped for another config", judging{conf: "90%"}, judging{config: Settings{Confidence: 0.99}}, "confidence `90%`",
			[]string{"its confidence was `90%`, now `99%` (the config's)"}},
		{"the config's numbers since", judging{}, judging{config: Settings{Numbers: point}}, "",
			[]string{"its numbers were none, now `1,234.5` (the config's)"}},
		{"the config's numbers the other way", judging{config: Settings{Numbers: point}}, judging{config: Settings{Numbers: measure.NumbersComma}}, "numbers `1,234.5`",
			[]string{"its numbers were `1,234.5`, now `1.234,5` (the config's)"}},
	}
	falsifier := func(j judging) Falsifier {
		return Falsifier{N: 1, ID: "f-1a2b", Criterion: "rate < 100", Confidence: j.conf, Numbers: j.numbers,
			Captures: []string{"rate = ([0-9.]+)"}, CaptureLines: []int{3}}.Under(j.config)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			was := falsifier(c.was)
			if c.recorded != "" {
				c.recorded = " · " + c.recorded
			}
			c.recorded = "capture `rate = ([0-9.]+)`" + c.recorded
			if got := was.JudgedWith(); got != c.recorded {
				t.Errorf("recorded %q, want %q", got, c.recorded)
			}
			r := Run{ID: "20261206T010203Z-1a2b", FalsifierID: "f-1a2b", Runs: 1, Verdict: VerdictSupports,
				Criterion: "rate = 120; refuted if `rate < 100`: not refuted", JudgedWith: was.JudgedWith()}
			l := Latest{Falsifier: falsifier(c.now), Run: r, Runs: []Run{r}}
			if got := JudgingChanges(l); !slices.Equal(got, c.changes) {
				t.Errorf("changes = %q, want %q", got, c.changes)
			}
			if l.CriterionChanged() != (c.changes != nil) {
				t.Errorf("CriterionChanged() = %v, want %v", l.CriterionChanged(), c.changes != nil)
			}
		})
	}
}

// The config's numbers read captures only: a falsifier without one (a
// JSON criterion) is judged alike whatever they say, and a change of
// them is no change of its criterion.
func TestJudgedWithTheConfigsNumbersWithoutCaptures(t *testing.T) {
	f := Falsifier{N: 1, ID: "f-1a2b", Criterion: "json.p99_ms > 100"}
	was := f.Under(Settings{Numbers: measure.NumbersComma})
	if got := was.JudgedWith(); got != "" {
		t.Errorf("recorded %q, want nothing", got)
	}
	r := Run{ID: "20261206T010203Z-1a2b", FalsifierID: "f-1a2b", Runs: 1, Verdict: VerdictSupports,
		Criterion: "json.p99_ms = 80 (n = 1: one reading, noise unknown); refuted if `json.p99_ms > 100`: not refuted", JudgedWith: was.JudgedWith()}
	if l := (Latest{Falsifier: f.Under(Settings{Numbers: measure.NumbersPoint}), Run: r, Runs: []Run{r}}); l.CriterionChanged() {
		t.Errorf("changed: %q", JudgingChanges(l))
	}
}

// A record judged otherwise than the falsifier judges now is judged
// again, when a run under it answers a refutation, by what the record
// states, not by what the config says now: a record stating no
// confidence was judged at 95%, whatever the config says.
func TestAnsweringByTheRecordsJudging(t *testing.T) {
	f := Falsifier{N: 1, ID: "f-1a2b", Criterion: "rate < 100", Confidence: "99%"}.Under(Settings{Confidence: 0.8})
	l := Latest{Falsifier: f}
	g, err := l.answering(Run{FalsifierID: "f-1a2b", JudgedWith: ""}, "rate < 90")
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.settings(Settings{Confidence: 0.8, Numbers: measure.NumbersComma})
	if err != nil {
		t.Fatal(err)
	}
	if s.Confidence != 0.95 || s.Numbers != measure.NumbersAny {
		t.Errorf("judged again at %v with numbers %q, want 0.95 and none", s.Confidence, s.Numbers)
	}
}

// A change named beside a cosmetic one names only the change.
func TestJudgingChangesNamesOnlyMeaning(t *testing.T) {
	was := Falsifier{N: 1, ID: "f-1a2b", Criterion: "a < 1", Captures: []string{"`a = ([0-9]+)`", "`b = x([0-9]+)`"}, Confidence: "95%"}
	now := was
	now.Captures, now.Confidence = []string{"b = x(\\d+)", "a=([0-9]+)"}, "99%"
	r := Run{ID: "20261206T010203Z-1a2b", FalsifierID: "f-1a2b", Runs: 1, Criterion: "a = 0; refuted if `a < 1`: refuted", JudgedWith: was.JudgedWith()}
	got := JudgingChanges(Latest{Falsifier: now, Run: r})
	if want := []string{"its confidence was `95%`, now `99%`"}; !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
}

// A criterion respaced is the criterion its runs were judged by; another
// is not.
func TestCriterionRespacedIsNoChange(t *testing.T) {
	r := Run{ID: "20261206T010203Z-1a2b", FalsifierID: "f-1a2b", Runs: 1, Verdict: VerdictSupports, Criterion: "rate = 120; refuted if `rate < 100`: not refuted"}
	for crit, changed := range map[string]bool{"rate<100": false, "(rate < 100)": false, "rate <= 100": true} {
		l := Latest{Falsifier: Falsifier{N: 1, ID: "f-1a2b", Criterion: crit}, Run: r, Runs: []Run{r}}
		if l.CriterionChanged() != changed {
			t.Errorf("%q: CriterionChanged() = %v, want %v", crit, l.CriterionChanged(), changed)
		}
	}
}

// FuzzSameJudgedWith: a record's Judged with field is the vault's text,
// hostile as any; comparing it never panics, a field is alike to itself,
// and the comparison does not depend on the order asked.
func FuzzSameJudgedWith(f *testing.F) {
	f.Add("capture `rate = ([0-9.]+) tok/s` · confidence `95%`", "capture `rate=([0-9.]+) tok/s`")
	f.Add("numbers `1,234.5` · confidence `0.99`", "numbers `1.234,5`")
	f.Add("capture ``a = (`+)`` · capture `b = (x`", "confidence `high`")
	f.Add("capture `a = ((((((((((1))))))))))`", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !sameJudgedWith(a, a) {
			t.Fatalf("%q is not alike to itself", a)
		}
		if sameJudgedWith(a, b) != sameJudgedWith(b, a) {
			t.Fatalf("sameJudgedWith(%q, %q) depends on the order", a, b)
		}
	})
}
