package lint

// NormHeading is a heading as link matching compares it (normHeading):
// zk mv's heading rename finds the links to a heading the way zk check
// finds them broken.
func NormHeading(s string) string { return normHeading(s) }
