package kvstore

// New returns the store kept in path, with nothing to take over: the
// tests' store (fledge's are ForPlugin's).
func New(path string) *Store { return &Store{path: path} }
