// Package lint is zk check: the rule table (Rules, one row per stable
// rule id, which the checker, SARIF, zk init's config and the README all
// read), the checker that runs the rules over a vault's notes and then
// over their links once every note is known, suppressions (zk-ignore),
// and the Session the language server keeps between edits.
package lint
