// Package semver is github.com/Masterminds/semver/v3 v3.5.0's versions and
// constraints (version.go and constraints.go, MIT, LICENSE.txt here) with one
// change: its six regular expressions are compiled on first use instead of
// in init. Linked, the upstream package compiled them on every fledge start,
// whatever the command: 0.3 ms, 1,262 allocations (200 KB) and 50 page
// faults (fledge --version went from 711 to 661, median of 300 runs
// alternating the two builds; GODEBUG=inittrace=1 for the rest, on the
// loaded 2-core machine), while only install, update, publish and manifest
// validation parse a version.
//
// The diff against upstream is the lazy compile alone (diff the two files
// against the module cache's copy). semver_test.go checks it against
// upstream, which stays a test-only dependency: a fuzz target compares
// every parse, comparison and constraint check. Delete this copy for
// upstream once upstream compiles lazily.
package semver
