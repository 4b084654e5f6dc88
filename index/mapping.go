package index

import (
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/unicodenorm"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Schema is the version of what zk puts in the index: the mapping, the
// analyzers and the fields. An index stamped with another schema is
// rebuilt, never read (9: frontmatter text in prop and the title's
// aliases, CJK and Hangul pairs in every language, fullwidth forms
// folded before words are split, Arabic, Persian, Turkish and Hebrew;
// 10: Romanian, Hungarian and Polish stemmed, Ukrainian, Indonesian,
// Czech and Greek; 11: Bulgarian and Serbian, which were read as
// Russian, Bulgarian with a stemmer of its own, Croatian stemmed).
const Schema = 11

// The searchable fields. A query names them as "claim:word".
const (
	FieldPath     = "path"
	FieldTitle    = "title"
	FieldClaim    = "claim"
	FieldScope    = "scope"
	FieldEvidence = "evidence"
	FieldBody     = "body"
	// FieldProp is the text of the frontmatter's properties: each text
	// value and each text item of a list, keys left out.
	FieldProp   = "prop"
	FieldTag    = "tag"
	FieldLinks  = "links"
	FieldTended = "tended"
	// FieldLang is the note's language code (en, fr, ja, und).
	FieldLang = "lang"
	// fieldTitleWhole is the whole title, and the note's file name, each
	// as one term, for the exact title match that leads a search; queries
	// do not name it.
	fieldTitleWhole = "title-whole"
	// fieldHash is the content hash of the text indexed, stored only: a
	// hit's fragment is cut from the note when its bytes are still these.
	fieldHash = "hash"
)

// textFields are the fields a query word without a field searches, in the
// order a hit's fragment is preferred from.
var textFields = []string{FieldClaim, FieldScope, FieldEvidence, FieldBody, FieldProp, FieldTitle}

// Analyzer names registered in the mapping.
const (
	// analyzerName keeps a tag or link target whole, lower-cased.
	analyzerName = "zk-name"
	// analyzerWhole keeps a title whole, lower-cased and folded.
	analyzerWhole = "zk-whole"
	// filterNFC puts text in Unicode normal form C.
	filterNFC = "zk-nfc"
)

// termAnalyzer names a language's analysis of one word as written, whole:
// zk-term-fr (see termFilters). No field is indexed with it.
func termAnalyzer(code string) string { return "zk-term-" + code }

// termFilters are the filters of a language's analysis that a word goes
// through as written: all but the CJK pairs and the stemmer. A prefix or
// wildcard term is put through them, so that "Caf*" finds "café" as
// "caf*" does, and "fuß*" finds "Fußnote": bleve matches such a term
// against the indexed terms as typed.
func termFilters(l language) []any {
	filters := []any{filterNFC, filterWidth, lowercase.Name}
	for _, f := range l.filters {
		if f != l.stemmer() {
			filters = append(filters, f)
		}
	}
	return filters
}

// langAnalyzer names a language's analyzer: zk-fr. Each splits on
// Unicode word boundaries (text without word spaces into pairs of
// characters, tokenizerWords, and any word past maxTokenBytes cut), puts
// words in NFC and lower case, and keeps
// common words, so phrases stay exact (see languages for the rest).
func langAnalyzer(code string) string { return "zk-" + code }

// doc is what bleve indexes for one note. Each byte of the note's text is
// in exactly one of TitleText, Claim, Scope, Evidence, Body and Prop; each
// of those is indexed under the note's language (body_fr), see fields.
type doc struct {
	Path string
	Lang string
	// Title is the title shown (stored); TitleText is the title searched,
	// with the note's aliases.
	Title     string
	TitleText string
	Whole     []string
	Claim     string
	Scope     string
	Evidence  string
	Body      string
	Prop      string
	Tags      []string
	Links     []string
	Tended    *time.Time
	Hash      string
}

// langField names a text field's copy for one language: body_fr.
func langField(field, lang string) string { return field + "_" + lang }

// longWords counts the distinct words of the note that the index cuts to
// maxTokenBytes (a long title is in the text and the whole title, a long
// tag in the text and the tags: one word).
func (d doc) longWords() int {
	seen := map[string]bool{}
	for _, text := range []string{d.TitleText, d.Claim, d.Scope, d.Evidence, d.Body, d.Prop} {
		longWords(text, seen)
	}
	for _, vs := range [][]string{d.Whole, d.Tags, d.Links} {
		for _, v := range vs {
			if len(v) > maxTokenBytes {
				seen[v] = true
			}
		}
	}
	return len(seen)
}

// overWords reports whether a text field holds more words than the index
// keeps at their positions (maxFieldWords).
func (d doc) overWords() bool {
	for _, text := range []string{d.TitleText, d.Claim, d.Scope, d.Evidence, d.Body, d.Prop} {
		if overWords(text) {
			return true
		}
	}
	return false
}

// fields is what bleve is given: a map, since the text fields' names
// carry the note's language.
func (d doc) fields() map[string]any {
	m := map[string]any{
		FieldPath:       d.Path,
		FieldTitle:      d.Title,
		fieldTitleWhole: d.Whole,
		FieldTag:        d.Tags,
		FieldLinks:      d.Links,
		FieldLang:       d.Lang,
		fieldHash:       d.Hash,
	}
	for f, text := range map[string]string{FieldTitle: d.TitleText, FieldClaim: d.Claim, FieldScope: d.Scope, FieldEvidence: d.Evidence, FieldBody: d.Body, FieldProp: d.Prop} {
		if text != "" {
			m[langField(f, d.Lang)] = text
		}
	}
	if d.Tended != nil {
		m[FieldTended] = *d.Tended
	}
	return m
}

// newMapping is the explicit, lean mapping: nothing dynamic, no _all
// field, no doc values, only path and title stored. Text fields keep term
// vectors, which phrase queries and hit locations need. The text itself is
// not stored: fragments are cut from the note, the source of truth.
func newMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	// NFC first: macOS keyboards and file names can give "é" as e and a
	// combining accent, which must match the single code point.
	if err := im.AddCustomTokenFilter(filterNFC, map[string]any{
		"type": unicodenorm.Name,
		"form": unicodenorm.NFC,
	}); err != nil {
		return nil, err
	}
	if err := registerAnalysis(); err != nil {
		return nil, err
	}
	for code, l := range languages {
		// CJK and Hangul go into pairs of characters in every language,
		// by script: a Korean word in a note read as English was one word
		// with its particle (보관소를), which 보관소 did not find, and
		// Chinese characters were words one each, which 标注 found
		// anywhere apart. The filter passes every other word as it is.
		filters := append(termFilters(l), cjk.BigramName)
		if stem := l.stemmer(); stem != "" {
			if l.stemFirst { // the stemming filter folds
				filters = slices.DeleteFunc(filters, func(f any) bool { return f == filterFold })
			}
			if err := im.AddCustomTokenFilter(stemFilter(code), map[string]any{"type": filterStem, "stemmer": stem, "first": l.stemFirst}); err != nil {
				return nil, err
			}
			filters = append(filters, stemFilter(code))
		}
		if err := im.AddCustomAnalyzer(langAnalyzer(code), map[string]any{
			"type":          custom.Name,
			"tokenizer":     tokenizerWords,
			"token_filters": filters,
		}); err != nil {
			return nil, err
		}
		if err := im.AddCustomAnalyzer(termAnalyzer(code), map[string]any{
			"type":          custom.Name,
			"tokenizer":     single.Name,
			"token_filters": append([]any{filterCut}, termFilters(l)...),
		}); err != nil {
			return nil, err
		}
	}
	if err := im.AddCustomAnalyzer(analyzerWhole, map[string]any{
		"type":          custom.Name,
		"tokenizer":     single.Name,
		"token_filters": []any{filterCut, filterNFC, filterWidth, lowercase.Name, filterFold},
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          custom.Name,
		"tokenizer":     single.Name,
		"token_filters": []any{filterCut, filterNFC, lowercase.Name},
	}); err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = langAnalyzer("en")
	im.DefaultField = FieldBody
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false

	dm := bleve.NewDocumentStaticMapping()
	keyword := func(store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Store, f.IncludeInAll, f.DocValues, f.IncludeTermVectors = store, false, false, false
		return f
	}
	text := func(lang string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = langAnalyzer(lang)
		f.Store, f.IncludeInAll, f.DocValues, f.IncludeTermVectors = false, false, false, true
		return f
	}
	name := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzerName
		f.Store, f.IncludeInAll, f.DocValues, f.IncludeTermVectors = false, false, false, false
		return f
	}
	dm.AddFieldMappingsAt(FieldPath, keyword(true))
	stored := bleve.NewTextFieldMapping() // the title as shown, not searched
	stored.Index, stored.Store, stored.IncludeInAll, stored.DocValues, stored.IncludeTermVectors = false, true, false, false, false
	dm.AddFieldMappingsAt(FieldTitle, stored)
	hash := bleve.NewTextFieldMapping() // stored, not searched
	hash.Index, hash.Store, hash.IncludeInAll, hash.DocValues, hash.IncludeTermVectors = false, true, false, false, false
	dm.AddFieldMappingsAt(fieldHash, hash)
	for code := range languages {
		for _, f := range textFields {
			dm.AddFieldMappingsAt(langField(f, code), text(code))
		}
	}
	whole := name()
	whole.Analyzer = analyzerWhole
	dm.AddFieldMappingsAt(fieldTitleWhole, whole)
	dm.AddFieldMappingsAt(FieldLang, keyword(false))
	dm.AddFieldMappingsAt(FieldTag, name())
	dm.AddFieldMappingsAt(FieldLinks, name())
	tended := bleve.NewDateTimeFieldMapping()
	tended.Store, tended.IncludeInAll, tended.DocValues = false, false, false
	dm.AddFieldMappingsAt(FieldTended, tended)
	im.DefaultMapping = dm
	return im, im.Validate()
}
