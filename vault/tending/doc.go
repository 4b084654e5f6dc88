// Package tending is a note's maintenance cadence: where its Last tended
// date is written (the Maintenance line, a frontmatter property, a
// Dataview field, a garden footer), the interval that applies to it, which
// notes are stale or due, and zk tend's edit of that one date.
package tending
