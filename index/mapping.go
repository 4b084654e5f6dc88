package index

import (
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/unicodenorm"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Schema is the version of what zk puts in the index: the mapping, the
// analyzers and the fields. An index stamped with another schema is
// rebuilt, never read.
const Schema = 3

// The searchable fields. A query names them as "claim:word".
const (
	FieldPath     = "path"
	FieldTitle    = "title"
	FieldClaim    = "claim"
	FieldScope    = "scope"
	FieldEvidence = "evidence"
	FieldBody     = "body"
	FieldTag      = "tag"
	FieldLinks    = "links"
	FieldTended   = "tended"
	// fieldTitleWhole is the whole title, and the note's file name, each
	// as one term, for the exact title match that leads a search; queries
	// do not name it.
	fieldTitleWhole = "title-whole"
)

// textFields are the fields a query word without a field searches, in the
// order a hit's fragment is preferred from.
var textFields = []string{FieldClaim, FieldScope, FieldEvidence, FieldBody, FieldTitle}

// Analyzer names registered in the mapping.
const (
	// analyzerText splits on Unicode word boundaries, lower-cases, and
	// folds English plurals; it keeps stop words (see the README).
	analyzerText = "zk-text"
	// analyzerName keeps a tag or link target whole, lower-cased.
	analyzerName = "zk-name"
	// filterNFC puts text in Unicode normal form C.
	filterNFC = "zk-nfc"
)

// doc is what bleve indexes for one note. Each byte of the note's text is
// in exactly one of Title, Claim, Scope, Evidence and Body.
type doc struct {
	Path     string     `json:"path"`
	Title    string     `json:"title"`
	Whole    []string   `json:"title-whole"`
	Claim    string     `json:"claim"`
	Scope    string     `json:"scope"`
	Evidence string     `json:"evidence"`
	Body     string     `json:"body"`
	Tags     []string   `json:"tag"`
	Links    []string   `json:"links"`
	Tended   *time.Time `json:"tended,omitempty"`
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
	if err := im.AddCustomAnalyzer(analyzerText, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []any{filterNFC, en.PossessiveName, lowercase.Name, en.PluralStemmerName},
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          custom.Name,
		"tokenizer":     single.Name,
		"token_filters": []any{filterNFC, lowercase.Name},
	}); err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = analyzerText
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
	text := func(store bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzerText
		f.Store, f.IncludeInAll, f.DocValues, f.IncludeTermVectors = store, false, false, true
		return f
	}
	name := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzerName
		f.Store, f.IncludeInAll, f.DocValues, f.IncludeTermVectors = false, false, false, false
		return f
	}
	dm.AddFieldMappingsAt(FieldPath, keyword(true))
	dm.AddFieldMappingsAt(FieldTitle, text(true))
	for _, f := range []string{FieldClaim, FieldScope, FieldEvidence, FieldBody} {
		dm.AddFieldMappingsAt(f, text(false))
	}
	dm.AddFieldMappingsAt(fieldTitleWhole, name())
	dm.AddFieldMappingsAt(FieldTag, name())
	dm.AddFieldMappingsAt(FieldLinks, name())
	tended := bleve.NewDateTimeFieldMapping()
	tended.Store, tended.IncludeInAll, tended.DocValues = false, false, false
	dm.AddFieldMappingsAt(FieldTended, tended)
	im.DefaultMapping = dm
	return im, im.Validate()
}
