// Package vault reads an Obsidian vault the way Obsidian does and edits its
// notes without losing a byte.
//
// Concepts:
//
//   - A vault is a folder tree. Dot-prefixed files and folders (.obsidian,
//     .trash, .git, .zk) are not part of it, as in Obsidian.
//   - A note is a .md file in the vault. Its name is its file name without
//     the extension; links resolve to it by name, case-insensitively, with
//     Obsidian's tie-breaks (see Resolver).
//   - Parse turns a note's bytes into a Note: frontmatter, headings, links,
//     embeds, block ids, tags and the heading sections the linter reads.
//     Positions are byte offsets into the source; Obsidian's UTF-16
//     positions are derived from them on output.
//
// Invariants:
//
//   - Nothing in this package prints, reads flags or exits.
//   - Every file access goes through an os.Root on the vault, so no path,
//     link or symlink can make zk read or write outside it.
//   - Writes are byte splices: every byte outside the edited span is kept.
package vault
