package vault

// What the packages beside vault (lint, tending, evidence) read of a
// note's source: positions and names, computed as the parser computes them.

// Lines maps byte offsets of a source to 0-based lines and positions.
type Lines struct{ idx *lineIndex }

// NewLines indexes the line starts of src.
func NewLines(src []byte) Lines { return Lines{newLineIndex(src)} }

// Line is the 0-based line holding off.
func (l Lines) Line(off int) int { return l.idx.line(off) }

// Pos is the position of off.
func (l Lines) Pos(off int) Pos { return l.idx.pos(off) }

// Col is the 0-based column of off in runes, as an editor counts it,
// costing at most a few hundred bytes of counting on the longest line.
func (l Lines) Col(off int) int { return l.idx.col(off) }

// Start is the offset of the start of the line holding off.
func (l Lines) Start(off int) int { return l.idx.lineStart(off) }

// End is the offset of the newline (or the end of the source) of the line
// holding off.
func (l Lines) End(off int) int { return l.idx.lineEnd(off) }

// FoldName is a name or path as the resolver compares it: NFC, lower case.
func FoldName(s string) string { return fold(s) }

// IsNotePath reports whether a vault path names a note (a .md file).
func IsNotePath(p string) bool { return isNotePath(p) }

// TypeOf is the first of types that n's frontmatter names, else the
// first whose paths match n's, or nil.
func TypeOf(types []*NoteType, n *Note) *NoteType { return typeOf(types, n) }

// LineStart is the offset of 0-based line ln, clamped to the source's
// lines.
func (l Lines) LineStart(ln int) int {
	return l.idx.starts[max(0, min(ln, len(l.idx.starts)-1))]
}

// Count is the number of lines; a final newline opens an empty last line.
func (l Lines) Count() int { return len(l.idx.starts) }
