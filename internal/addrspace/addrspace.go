// Package addrspace says how much more address space the process may map
// under its RLIMIT_AS (prlimit --as, ulimit -v). Go does not look: it
// reserves far more address space than its heap uses (a cold check of
// obsidian-hub needed between 1.4 and 2 GB of it for a 93 MB heap), and
// a heap grown into the limit ends the process with Go's fatal "out of
// memory" rather than collecting sooner.
package addrspace

// Unlimited is Room's answer where no limit is set.
const Unlimited = ^uint64(0)
