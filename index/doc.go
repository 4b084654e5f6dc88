// Package index keeps a bleve full-text index of a vault and searches it.
//
// The index is a disposable cache of the notes, which stay the source of
// truth: it lives outside the vault (DefaultDir), holds one document per
// note with each byte of text in exactly one field, and records in itself,
// atomically with the documents, the path, size, mtime and content hash of
// every note it holds, so Update reads only notes that changed. Anything
// wrong with it (an open error, a panic inside bleve, a segment or manifest
// failing its checksum, another schema) makes it damaged: it is moved aside
// and rebuilt from the notes. One process writes at a time, under a lock
// with a bounded wait; a rebuild goes into a new folder that replaces the
// old one atomically, so a search never sees half an index.
//
// The package reads the vault only through package vault and never
// prints; progress is a callback.
package index
