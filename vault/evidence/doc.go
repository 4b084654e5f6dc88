// Package evidence is a falsifier's record in its note: the falsifiers a
// note lists (their commands and criteria), the checksummed run blocks zk
// run and zk attach append to its Evidence section and read back, the
// verdict each run's criterion gives, and the ledger that tells a deleted
// refutation from one never recorded. How a criterion reads a command's
// output is in criterion and measure.
package evidence
