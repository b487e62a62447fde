//go:build !unix

package policy

// unprotected cannot judge ownership here: Windows keeps it in ACLs,
// which this check does not read.
func unprotected(path string) string {
	return path + ": who may change it is not checked on this system (its ACL is not read)"
}
